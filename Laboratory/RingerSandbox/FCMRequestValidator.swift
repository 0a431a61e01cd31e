import Foundation

/// FCM HTTP v1 `projects.messages.send` rules, as the sandbox applies them to one request (Google: FCM HTTP v1
/// reference `projects.messages.send`, `Message`, `AndroidConfig`; "Error codes"; "About FCM messages").
///
/// Checked in the order Google's stack answers: the path and method, the access token (401), its scope and
/// project (403), then the body against the JSON schema (the API front end: 400 without an `FcmError` entry),
/// then FCM's own rules (400 `INVALID_ARGUMENT` with `FcmError`), and last the registration token
/// (400 naming `message.token`, 403 `SENDER_ID_MISMATCH`, 404 `UNREGISTERED`). JSON field names may be
/// `snake_case` or `lowerCamelCase`, as Google's proto JSON parser accepts both.
///
/// Pure: the caller supplies the request, the issued access tokens, the devices and the time.
struct FCMRequestValidator: Sendable {
    /// The request as received.
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    /// Whom a message is for (the `target` oneof of `Message`). A `fid` (Firebase installation id) is looked
    /// up among the sandbox's devices like a registration token: it keeps one identifier per phone.
    enum Target: Sendable, Equatable {
        case token(String)
        case topic(String)
        case condition(String)
    }

    /// What an accepted request asks for.
    struct Accepted: Sendable, Equatable {
        /// The project of the path.
        var projectID: String
        var target: Target
        /// The data the app receives: `android.data` when given (it overrides `data` for Android), else `data`.
        var data: [String: String]
        var notification: FCMSandboxMessage.Notification?
        /// `android.priority`, or Google's default: HIGH for a message with a notification, NORMAL for data only.
        var priority: FCMSandboxMessage.Priority
        /// `android.ttl` in seconds; 4 weeks when absent.
        var ttl: TimeInterval
        var collapseKey: String?
        /// `validate_only`: check everything, deliver nothing.
        var validateOnly: Bool
    }

    /// The largest data payload, counted as FCM counts it: the UTF-8 bytes of every key and value (Google:
    /// "About FCM messages", 4096 bytes).
    static let maximumDataBytes = 4096
    /// The longest `android.ttl`, seconds (Google: 4 weeks), also the default.
    static let maximumTTL: TimeInterval = 2_419_200

    private static let pathPrefix = "/v1/projects/"
    private static let pathSuffix = "/messages:send"
    private static let requestFields: Set<String> = ["message", "validate_only"]
    private static let messageFields: Set<String> = [
        "name", "data", "notification", "android", "webpush", "apns",
        "fcm_options", "token", "topic", "condition", "fid",
    ]
    private static let notificationFields: Set<String> = ["title", "body", "image"]
    private static let androidFields: Set<String> = [
        "collapse_key", "priority", "ttl", "restricted_package_name", "data",
        "notification", "fcm_options", "direct_boot_ok",
        "bandwidth_constrained_ok", "restricted_satellite_ok",
    ]

    /// The message as parsed, before FCM's own rules.
    private struct Parsed {
        var targets: [(field: String, value: String)] = []
        var data: [String: String]?
        var notification: FCMSandboxMessage.Notification?
        var hasAndroidNotification = false
        var androidData: [String: String]?
        var priority: FCMSandboxMessage.Priority?
        var ttl: TimeInterval?
        var collapseKey: String?
        var restrictedPackageName: String?
        var validateOnly = false
    }

    /// Checks one `messages:send` request.
    /// - Parameters:
    ///   - request: Method, path, headers (lower-case names) and body.
    ///   - accessToken: The token endpoint's record of a bearer token, or nil for one it never issued.
    ///   - device: The device of a registration token, or nil for a token FCM never issued.
    ///   - now: Real time, for the access token's expiry.
    /// - Returns: What to deliver (or, with `validateOnly`, what would be).
    /// - Throws: ``FCMSandboxRejection`` with Google's status and body.
    func validate(
        _ request: Request, accessToken: (String) -> FCMAccessTokens.Issued?,
        device: (String) -> FCMSandboxDevice?, now: Date
    ) throws(FCMSandboxRejection) -> Accepted {
        guard request.method == "POST", let project = Self.project(inPath: request.path) else {
            throw FCMSandboxRejection.noSuchMethod
        }
        guard let authorization = request.headers["authorization"], !authorization.isEmpty else {
            throw FCMSandboxRejection.missingCredentials
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
            let issued = accessToken(parts[1].trimmingCharacters(in: .whitespaces)), issued.expiresAt > now
        else {
            throw FCMSandboxRejection.unauthenticated
        }
        guard !issued.grant.scopes.isDisjoint(with: FCMTokenGrantValidator.messagingScopes) else {
            throw FCMSandboxRejection.insufficientScopes
        }
        guard issued.grant.projectIDs.contains(project) else {
            throw FCMSandboxRejection.permissionDenied(project: project)
        }

        let parsed = try Self.parse(request.body)
        return try Self.check(parsed, project: project, device: device)
    }

    /// The project id of `/v1/projects/{project}/messages:send`, or nil for any other path.
    static func project(inPath path: String) -> String? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(pathSuffix),
            path.count > pathPrefix.count + pathSuffix.count
        else { return nil }
        let project = String(path.dropFirst(pathPrefix.count).dropLast(pathSuffix.count))
        return project.contains("/") ? nil : project
    }

    /// The number of bytes FCM counts for a data payload: keys and values in UTF-8.
    static func dataBytes(_ data: [String: String]) -> Int {
        data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    // MARK: Schema (Google's API front end)

    private static func parse(_ body: [UInt8]) throws(FCMSandboxRejection) -> Parsed {
        guard let root = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
            throw FCMSandboxRejection.invalidJSON("Invalid JSON payload received. Unexpected token.", field: "")
        }
        guard let request = root as? [String: Any] else {
            throw FCMSandboxRejection.invalidJSON("Invalid JSON payload received. Expected an object.", field: "")
        }
        let fields = try object(request, at: "", known: requestFields)
        var parsed = Parsed()
        if let value = fields["validate_only"] {
            guard let flag = value as? Bool else { throw invalidValue("validate_only", "TYPE_BOOL", value) }
            parsed.validateOnly = flag
        }
        guard let messageValue = fields["message"] else {
            throw FCMSandboxRejection.invalidArgument(
                "Request contains an invalid argument.", field: "message",
                description: "Message must be specified.")
        }
        guard let messageObject = messageValue as? [String: Any] else {
            throw invalidValue("message", "type.googleapis.com/google.firebase.fcm.v1.Message", messageValue)
        }
        let message = try object(messageObject, at: "message", known: messageFields)
        for name in ["token", "fid", "topic", "condition"] {
            guard let value = message[name] else { continue }
            guard let text = value as? String else { throw invalidValue("message.\(name)", "TYPE_STRING", value) }
            guard parsed.targets.isEmpty else {
                throw FCMSandboxRejection.invalidJSON(
                    "Invalid JSON payload received. Oneof field 'target' is already set. Cannot set '\(name)'",
                    field: "message")
            }
            parsed.targets.append((name, text))
        }
        if let value = message["data"] { parsed.data = try stringMap(value, at: "message.data") }
        if let value = message["notification"] {
            guard let block = value as? [String: Any] else {
                throw invalidValue(
                    "message.notification", "type.googleapis.com/google.firebase.fcm.v1.Notification", value)
            }
            let notification = try object(block, at: "message.notification", known: notificationFields)
            var strings: [String: String] = [:]
            for (name, value) in notification {
                guard let text = value as? String else {
                    throw invalidValue("message.notification.\(name)", "TYPE_STRING", value)
                }
                strings[name] = text
            }
            parsed.notification = .init(title: strings["title"], body: strings["body"])
        }
        for name in ["webpush", "apns", "fcm_options"] {
            if let value = message[name], !(value is [String: Any]) {
                throw invalidValue("message.\(name)", "type.googleapis.com/google.firebase.fcm.v1.\(name)", value)
            }
        }
        if let value = message["android"] { try parseAndroid(value, into: &parsed) }
        return parsed
    }

    private static func parseAndroid(_ value: Any, into parsed: inout Parsed) throws(FCMSandboxRejection) {
        guard let block = value as? [String: Any] else {
            throw invalidValue("message.android", "type.googleapis.com/google.firebase.fcm.v1.AndroidConfig", value)
        }
        let android = try object(block, at: "message.android", known: androidFields)
        for name in ["collapse_key", "restricted_package_name"] {
            guard let value = android[name] else { continue }
            guard let text = value as? String else {
                throw invalidValue("message.android.\(name)", "TYPE_STRING", value)
            }
            if name == "collapse_key" { parsed.collapseKey = text } else { parsed.restrictedPackageName = text }
        }
        if let value = android["priority"] {
            // The documented names are HIGH and NORMAL; Google's front end also takes them in lower case, as
            // firebase-admin sends them ("high").
            guard let text = value as? String, let priority = FCMSandboxMessage.Priority(rawValue: text.uppercased())
            else {
                throw invalidValue(
                    "message.android.priority", "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority",
                    value)
            }
            parsed.priority = priority
        }
        if let value = android["ttl"] {
            guard let text = value as? String, let seconds = duration(text) else {
                throw invalidValue("message.android.ttl", "type.googleapis.com/google.protobuf.Duration", value)
            }
            parsed.ttl = seconds
        }
        if let value = android["data"] { parsed.androidData = try stringMap(value, at: "message.android.data") }
        if let value = android["notification"] {
            guard value is [String: Any] else {
                throw invalidValue(
                    "message.android.notification", "type.googleapis.com/google.firebase.fcm.v1.AndroidNotification",
                    value)
            }
            parsed.hasAndroidNotification = true
        }
        for name in ["fcm_options"] where android[name].map({ !($0 is [String: Any]) }) ?? false {
            throw invalidValue(
                "message.android.\(name)", "type.googleapis.com/google.firebase.fcm.v1.AndroidFcmOptions",
                android[name]!)
        }
    }

    /// The object's fields under their `snake_case` names.
    /// - Throws: the front end's `Unknown name` refusal for a field the schema lacks.
    private static func object(
        _ object: [String: Any], at path: String, known: Set<String>
    ) throws(FCMSandboxRejection)
        -> [String: Any]
    {
        var fields: [String: Any] = [:]
        for name in object.keys.sorted() {
            let normalized = snakeCase(name)
            guard known.contains(normalized) else {
                let place = path.isEmpty ? "" : " at '\(path)'"
                throw FCMSandboxRejection.invalidJSON(
                    "Invalid JSON payload received. Unknown name \"\(name.prefix(100))\"\(place): Cannot find field.",
                    field: path)
            }
            fields[normalized] = object[name]
        }
        return fields
    }

    /// A `map<string, string>`. Entries are numbered in key order (the sandbox cannot see the sender's order).
    private static func stringMap(_ value: Any, at path: String) throws(FCMSandboxRejection) -> [String: String] {
        guard let map = value as? [String: Any] else {
            throw invalidValue(path, "type.googleapis.com/google.protobuf.Map", value)
        }
        var strings: [String: String] = [:]
        for (index, key) in map.keys.sorted().enumerated() {
            guard let text = map[key] as? String else {
                throw invalidValue("\(path)[\(index)].value", "TYPE_STRING", map[key]!)
            }
            strings[key] = text
        }
        return strings
    }

    /// A `google.protobuf.Duration` in JSON: seconds with up to 9 fractional digits and the suffix `s`
    /// (Google: protobuf JSON mapping, `Duration`), e.g. `3.5s`, `0s`, `-1s`, within ±315,576,000,000 s.
    static func duration(_ text: String) -> TimeInterval? {
        guard text.hasSuffix("s") else { return nil }
        var number = Substring(text.dropLast())
        let negative = number.hasPrefix("-")
        if negative { number = number.dropFirst() }
        let pieces = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in !part.isEmpty && part.utf8.allSatisfy { (48...57).contains($0) } }
        guard isDigits(pieces[0]), pieces[0].count <= 12 else { return nil }
        if pieces.count == 2 { guard isDigits(pieces[1]), pieces[1].count <= 9 else { return nil } }
        guard let value = Double(number), value <= 315_576_000_000 else { return nil }
        return negative ? -value : value
    }

    private static func invalidValue(_ field: String, _ type: String, _ value: Any) -> FCMSandboxRejection {
        FCMSandboxRejection.invalidJSON("Invalid value at '\(field)' (\(type)), \(render(value))", field: field)
    }

    private static func render(_ value: Any) -> String {
        if value is [String: Any] { return "{...}" }
        if value is [Any] { return "[...]" }
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) else {
            return "?"
        }
        return String(decoding: data.prefix(100), as: UTF8.self)
    }

    /// `validateOnly` → `validate_only`; snake_case names stay as they are.
    private static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, character.isASCII {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    // MARK: FCM's own rules

    private static func check(
        _ parsed: Parsed, project: String, device: (String) -> FCMSandboxDevice?
    )
        throws(FCMSandboxRejection) -> Accepted
    {
        guard let (field, value) = parsed.targets.first else {
            throw FCMSandboxRejection.invalidArgument(
                "Recipient of the message is not set.", field: "message",
                description: "Exactly one of token, fid, topic or condition must be set.")
        }
        let data = parsed.androidData ?? parsed.data ?? [:]
        let dataField = parsed.androidData == nil ? "message.data" : "message.android.data"
        // Google: keys must not be a reserved word ("from", "notification", "message_type") or start with
        // "google" or "gcm".
        for key in data.keys.sorted() {
            let lowered = key.lowercased()
            if ["from", "notification", "message_type"].contains(key) || lowered.hasPrefix("google")
                || lowered.hasPrefix("gcm")
            {
                throw FCMSandboxRejection.invalidArgument(
                    "Invalid data payload key: \(key.prefix(100))", field: dataField,
                    description: "\"\(key.prefix(100))\" is a reserved key")
            }
        }
        guard dataBytes(data) <= maximumDataBytes else {
            throw FCMSandboxRejection.invalidArgument("Android message is too big")
        }
        let ttl = parsed.ttl ?? maximumTTL
        guard ttl >= 0, ttl <= maximumTTL else {
            throw FCMSandboxRejection.invalidArgument(
                "Invalid value at 'message.android.ttl': must be 0s to 2419200s (4 weeks)",
                field: "message.android.ttl")
        }
        let target: Target
        switch field {
        case "topic":
            let name = value.hasPrefix("/topics/") ? String(value.dropFirst(8)) : value
            guard !name.isEmpty, name.utf8.count <= 900, name.unicodeScalars.allSatisfy(Self.isTopicCharacter) else {
                throw FCMSandboxRejection.invalidArgument("Invalid topic name", field: "message.topic")
            }
            target = .topic(name)
        case "condition":
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw FCMSandboxRejection.invalidArgument("Invalid condition expression", field: "message.condition")
            }
            target = .condition(value)
        default:
            guard let known = device(value) else {
                throw field == "fid"
                    ? FCMSandboxRejection.invalidArgument(
                        "The Firebase installation ID is not valid",
                        field: "message.fid")
                    : FCMSandboxRejection.invalidRegistrationToken
            }
            guard known.projectID == project else { throw FCMSandboxRejection.senderIDMismatch }
            guard known.unregisteredAt == nil else { throw FCMSandboxRejection.unregistered }
            if let package = parsed.restrictedPackageName, package != known.packageName {
                throw FCMSandboxRejection.invalidArgument(
                    "The registration token's app does not match android.restricted_package_name",
                    field: "message.android.restricted_package_name")
            }
            target = .token(value)
        }
        let shows = parsed.notification != nil || parsed.hasAndroidNotification
        return Accepted(
            projectID: project, target: target, data: data, notification: parsed.notification,
            priority: parsed.priority ?? (shows ? .high : .normal), ttl: ttl,
            collapseKey: parsed.collapseKey, validateOnly: parsed.validateOnly)
    }

    /// Topic names are `[a-zA-Z0-9-_.~%]+` (Google: `Message.topic`).
    private static func isTopicCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.~%".unicodeScalars.contains(scalar))
    }
}
