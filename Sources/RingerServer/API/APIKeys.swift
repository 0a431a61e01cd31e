import Foundation
import OpenSSLSupport
import RingerHTTP
import RingerStore
import RingerSupport
import RingerWire

/// Who a backend route answers (``Route/Handler/backend(_:_:)``): the operator's admin key, which holds every
/// scope, or one of the API keys made with it.
enum BackendCredential: Sendable, Equatable {
    /// `--admin-key`.
    case adminKey
    /// An API key, by id and name (for logs; never the key).
    case apiKey(id: String, name: String)

    /// Who acted, for the log line of a change a backend made.
    var metadata: Logger.Metadata {
        switch self {
        case .adminKey: ["credential": .string("admin-key")]
        case .apiKey(let id, _): ["credential": .string("api-key"), "api_key.id": .string(id)]
        }
    }
}

/// API keys for the app's backend (decision 0009 §1): made, checked and remembered as used.
///
/// A key is `rk_` + a 12-character id + `_` + 43 characters of base64url (32 random bytes): 59 ASCII characters,
/// recognisable by secret scanners. The store keeps the SHA-256 of the whole key: with 256 random bits a slow hash adds
/// nothing, and a leaked database holds no usable key. Every request reads its key's row, so a revocation holds on
/// every server at once.
struct APIKeys: Sendable {
    let store: any RingerStore
    let clock: any ServerClock
    let log: Logger
    /// When this server last wrote each key's `last_used_at` (held by the router, so it outlives this value).
    let touched: LockedValue<[String: Date]>

    /// The prefix of every key.
    static let prefix = "rk_"
    /// Characters of a key id: lowercase base32 (RFC 4648 §6's alphabet, lowercased), 60 random bits.
    static let idLength = 12
    /// Random bytes behind a key's secret.
    static let secretBytes = 32
    /// Characters of a key: the prefix, the id, `_`, the secret in unpadded base64url.
    static let keyLength = prefix.utf8.count + idLength + 1 + 43
    /// `last_used_at` is written at most this often per key and server, seconds.
    static let touchInterval: TimeInterval = 60
    /// The most keys a server keeps: enough for any deployment, few enough that listing them is one small read.
    static let maximumKeys = 1000

    init(store: any RingerStore, clock: any ServerClock, log: Logger, touched: LockedValue<[String: Date]>) {
        self.store = store
        self.clock = clock
        self.log = log
        self.touched = touched
    }

    /// A new key and its stored record. Randomness from `SystemRandomNumberGenerator` (the system's cryptographic
    /// source: `getrandom` on Linux, `arc4random` on Apple platforms).
    /// - Parameters:
    ///   - name: what the key is for (checked by the caller).
    ///   - scopes: what it may do (checked by the caller).
    ///   - now: its creation time.
    static func generate(name: String, scopes: [APIKeyScope], now: Date) -> (key: String, stored: StoredAPIKey) {
        let id = RandomIdentifier.make(length: idLength)
        let secret = RandomIdentifier.bytes(secretBytes)
        // Unpadded base64url (RFC 4648 §5) from Foundation's base64.
        let encoded = Data(secret).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let key = prefix + id + "_" + encoded
        let info = APIKeyInfo(keyID: id, name: name, scopes: scopes, createdAt: now)
        return (key, StoredAPIKey(info: info, keyHash: SHA256Digest.hex(Array(key.utf8))))
    }

    /// The id of a string shaped like a key, or nil: checked before any lookup, so no malformed bearer reaches the store.
    static func keyID(of key: String) -> String? {
        let bytes = Array(key.utf8)
        guard bytes.count == keyLength, key.hasPrefix(prefix) else { return nil }
        let id = String(decoding: bytes[prefix.utf8.count..<(prefix.utf8.count + idLength)], as: UTF8.self)
        let secret = bytes[(prefix.utf8.count + idLength + 1)...]
        guard bytes[prefix.utf8.count + idLength] == UInt8(ascii: "_"), isKeyID(id),
            secret.allSatisfy(isBase64URLDigit)
        else { return nil }
        return id
    }

    private static func isBase64URLDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    /// Whether `id` could be a key id (for `DELETE /v1/api-keys/{key_id}`).
    static func isKeyID(_ id: String) -> Bool { RandomIdentifier.matches(id, length: idLength) }

    /// The stored key that `key` is.
    /// - Throws: 401 ``Problem`` for a key that is not well formed, unknown, revoked or whose secret does not match
    ///   (the same answer for each); ``StoreError``.
    func verify(_ key: String) async throws -> StoredAPIKey {
        guard let id = Self.keyID(of: key), let stored = try await store.apiKey(id: id),
            APIRouter.constantTimeEquals(SHA256Digest.hex(Array(key.utf8)), stored.keyHash)
        else { throw APIProblem.unauthorized("the API key is not valid (revoked, or never made here)") }
        return stored
    }

    /// Notes a request made with the key: its `last_used_at` is written after the answer, at most once per
    /// ``touchInterval`` on this server. A failed write is logged and costs the request nothing.
    func used(_ id: String) {
        let now = clock.now()
        let due = touched.withLock { last -> Bool in
            if let previous = last[id], now.timeIntervalSince(previous) < Self.touchInterval { return false }
            // Forget keys idle for a while, so the map holds only those in use.
            if last.count >= Self.maximumKeys {
                last = last.filter { now.timeIntervalSince($0.value) < Self.touchInterval }
            }
            last[id] = now
            return true
        }
        guard due else { return }
        Task { [store, log] in
            do {
                try await store.touchAPIKey(id: id, at: now)
            } catch {
                log.warning(
                    "could not record an API key's use", ["api_key.id": .string(id), "error": .string("\(error)")])
            }
        }
    }
}

/// A key without the scope its route needs: 403 with RFC 6750 §3.1's `insufficient_scope` challenge, naming it.
struct InsufficientScope: Error {
    let scope: APIKeyScope

    var response: HTTPResponse {
        APIProblem.response(
            APIProblem.insufficientScope(scope),
            headers: [("www-authenticate", "Bearer error=\"insufficient_scope\", scope=\"\(scope.rawValue)\"")])
    }
}
