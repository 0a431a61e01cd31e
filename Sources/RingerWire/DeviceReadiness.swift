public import Foundation

/// Something on a phone that would stop it ringing for a call, as its SDK sees it before any call comes:
/// the readiness pre-flight of `PUT /v1/devices/{device_id}` (docs/openapi.yaml `DeviceReadiness`).
///
/// The vocabulary is open: a newer SDK may report a problem this build has never heard of, and the server
/// keeps and shows it as long as it is a well-formed name (``isWellFormed(_:)``).
public struct ReadinessProblem: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted here (the server checks ``isWellFormed(_:)``).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The user turned the app's notifications off (iOS: `UNAuthorizationStatus.denied`; Android:
    /// `NotificationManagerCompat.areNotificationsEnabled()` false), so a missed call or an alert push shows nothing
    /// (on Android before 13, or without Telecom, a ringing call shows and plays nothing either).
    public static let notificationsDisabled = ReadinessProblem(rawValue: "notifications_disabled")
    /// Android 14+: the app may not use full-screen intents (`NotificationManager.canUseFullScreenIntent()`
    /// false), so a call on a locked phone is only a heads-up notification.
    public static let fullScreenIntentDenied = ReadinessProblem(rawValue: "full_screen_intent_denied")
    /// Android: the app is under battery optimisation (`PowerManager.isIgnoringBatteryOptimizations` false),
    /// so the system may delay or drop its high-priority messages.
    public static let batteryOptimized = ReadinessProblem(rawValue: "battery_optimized")
    /// The phone has no push token to register (iOS: PushKit gave no VoIP token), so it can be rung only
    /// while its app holds the event stream.
    public static let noPushToken = ReadinessProblem(rawValue: "no_push_token")
    /// The push token the phone holds may no longer be the one the push service would deliver to (the SDK
    /// could not refresh it).
    public static let pushTokenStale = ReadinessProblem(rawValue: "push_token_stale")
    /// The phone may not place or show calls for this app (Android: `MANAGE_OWN_CALLS` missing or the
    /// phone account disabled).
    public static let callsNotPermitted = ReadinessProblem(rawValue: "calls_not_permitted")
    /// Android: the device has no Telecom (`PackageManager.FEATURE_TELECOM` absent: some tablets, Chromebooks,
    /// watches), so calls ring as the app's notification only and no headset, car or watch can answer them.
    public static let telecomUnsupported = ReadinessProblem(rawValue: "telecom_unsupported")

    /// The names this build knows, in the order the SDKs document them.
    public static let known: [ReadinessProblem] = [
        .notificationsDisabled, .fullScreenIntentDenied, .batteryOptimized, .noPushToken, .pushTokenStale,
        .callsNotPermitted, .telecomUnsupported,
    ]

    /// The longest name the server keeps, in bytes.
    public static let maxLength = 64

    /// Whether `name` is a lowercase snake_case name of 1 to ``maxLength`` characters: a letter first, then
    /// letters, digits and single `_` between them (`notifications_disabled`, `battery_optimized`).
    public static func isWellFormed(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...maxLength).contains(bytes.count), let first = bytes.first, (97...122).contains(first),
            bytes.last != 95
        else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            guard (97...122).contains(byte) || (48...57).contains(byte) || byte == 95 else { return false }
            if byte == 95, previous == 95 { return false }
            previous = byte
        }
        return true
    }
}

/// What a phone reported would stop it ringing, and when the server heard it.
///
/// Sent in `PUT /v1/devices/{device_id}` as `{"problems": [...]}`; returned on the stored device as
/// `{"problems": [...], "reported_at": "…"}`. An empty `problems` means the phone checked and found nothing.
public struct DeviceReadiness: Codable, Hashable, Sendable {
    /// The problems, each a ``ReadinessProblem`` name; the server keeps them de-duplicated and sorted.
    public var problems: [ReadinessProblem]
    /// When the server stored the report (server time); nil in a registration, which the server stamps.
    public var reportedAt: Date?

    /// The most problem names one report may carry, counted as sent (duplicates included, as JSON Schema
    /// `maxItems` counts them in docs/openapi.yaml).
    public static let maxProblems = 16

    /// Creates a report.
    /// - Parameters:
    ///   - problems: what would stop the phone ringing; empty when nothing would.
    ///   - reportedAt: set by the server; leave nil when registering.
    public init(problems: [ReadinessProblem], reportedAt: Date? = nil) {
        self.problems = problems
        self.reportedAt = reportedAt
    }

    /// The problems as the server keeps them: each once, sorted by name, so two reports of the same
    /// problems compare equal whatever order a phone listed them in.
    public var normalizedProblems: [ReadinessProblem] {
        Set(problems).sorted { $0.rawValue < $1.rawValue }
    }

    /// The report as a registration can carry it without the server refusing the registration (422
    /// `invalid-field`): names that are not ``ReadinessProblem/isWellFormed(_:)`` are dropped, the rest
    /// de-duplicated, at most ``maxProblems`` kept (this build's ``ReadinessProblem/known`` names first), and
    /// sorted. A faulty report must never cost the device its registration, and so its calls.
    public var registrable: DeviceReadiness {
        let names = Set(problems.filter { ReadinessProblem.isWellFormed($0.rawValue) })
        let known = ReadinessProblem.known.filter(names.contains)
        let others = names.subtracting(known).sorted { $0.rawValue < $1.rawValue }
        let kept = (known + others).prefix(Self.maxProblems)
        return DeviceReadiness(problems: kept.sorted { $0.rawValue < $1.rawValue })
    }
}
