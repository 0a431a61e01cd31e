import Foundation
internal import RingerKit
internal import RingerWire

/// Why a method JavaScript called was refused: its ``code`` is what the Objective-C++ glue passes to React Native's
/// `reject(code, message, error)`, and the JavaScript layer turns into a `RingerError` (docs/react-native.md,
/// "Methods", each method's codes; react-native/src/errors.ts; the same codes as the Kotlin half). For
/// `server_refused`, ``problemType`` and ``status`` travel in the `NSError`'s `userInfo` (``nsError``). Messages never
/// hold a token.
struct RingerBridgeError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case notConfigured = "not_configured"
        case invalidArgument = "invalid_argument"
        case unknownCall = "unknown_call"
        case wrongState = "wrong_state"
        case notLoggedIn = "not_logged_in"
        case otherUserLoggedIn = "other_user_logged_in"
        case callInProgress = "call_in_progress"
        case serverRefused = "server_refused"
        case network
        case callUIRefused = "call_ui_refused"
        case native
    }

    private let kind: Code
    /// Words for the developer.
    let message: String
    /// For `server_refused`: the problem+json `type` the server answered with.
    let problemType: String?
    /// For `server_refused`: the HTTP status.
    let status: Int?

    private init(_ kind: Code, _ message: String, problemType: String? = nil, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.problemType = problemType
        self.status = status
    }

    /// The code JavaScript sees, e.g. `not_configured`.
    var code: String { kind.rawValue }

    var description: String { "\(code): \(message)" }

    /// No server is known, or `RingerReactNative.start()` never ran.
    static func notConfigured(_ message: String) -> Self { Self(.notConfigured, message) }
    /// An argument native code cannot use (a call id that is not a UUID, a URL that is not http(s), …).
    static func invalidArgument(_ message: String) -> Self { Self(.invalidArgument, message) }
    /// No call with this id is up on this phone.
    static func unknownCall(_ callID: String) -> Self { Self(.unknownCall, "no call \(callID) on this phone") }
    /// The call is not in a phase the method applies to.
    static func wrongState(_ message: String) -> Self { Self(.wrongState, message) }
    /// Nobody is logged in.
    static let notLoggedIn = Self(.notLoggedIn, "log in first")
    /// Another user is logged in on this phone.
    static let otherUserLoggedIn = Self(.otherUserLoggedIn, "another user is logged in: log out first")
    /// A call is ringing or up.
    static let callInProgress = Self(.callInProgress, "a call is ringing or up: hang up first")
    /// The system's call UI (CallKit) refused the request.
    static func callUIRefused(_ message: String) -> Self { Self(.callUIRefused, message) }
    /// Anything else that went wrong natively.
    static func native(_ message: String) -> Self { Self(.native, message) }

    /// The error JavaScript should see for any error a method met: itself, the server's refusal
    /// (`server_refused` with its problem type and status), no answer (`network`), or `native` (an answer that
    /// could not be read among them: the server did answer, and retrying will not make it readable).
    /// - Parameter error: what was thrown.
    init(_ error: any Error) {
        switch error {
        case let error as RingerBridgeError:
            self = error
        case let error as RingerAPIError:
            if let problem = error.problem {
                self.init(.serverRefused, error.description, problemType: problem.type, status: problem.status)
            } else if error.isTransport {
                self.init(.network, error.description)
            } else {
                self.init(.native, "the server's answer could not be read: \(error.description)")
            }
        default:
            self.init(.native, String(describing: error))
        }
    }

    /// The `NSError` React Native's `reject` takes; its `userInfo` carries `problemType` and `status` when known.
    var nsError: NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let problemType { userInfo["problemType"] = problemType }
        if let status { userInfo["status"] = status }
        return NSError(domain: "dev.ringer.reactnative", code: status ?? 0, userInfo: userInfo)
    }
}
