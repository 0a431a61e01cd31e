import CHiredis
public import Foundation

/// One RESP2 reply (https://redis.io/docs/latest/develop/reference/protocol-spec/), as hiredis parsed it.
///
/// ``RedisConnection``'s `command` throws a top-level error reply as ``RedisError/server(message:)``, so
/// ``error(_:)`` only appears inside arrays (e.g. `EXEC`'s results).
public enum RedisReply: Sendable, Hashable {
    /// A simple string such as `OK` or `PONG`.
    case status(String)
    /// An error nested in an array: Redis' message verbatim.
    case error(String)
    /// A 64-bit integer (`INCR`, `PUBLISH`'s receiver count, `EXISTS`).
    case integer(Int64)
    /// A bulk string, binary safe; nil for Redis' null (`GET` of a missing key, RESP2's null array too).
    case bulk(Data?)
    /// An array of replies.
    case array([RedisReply])

    /// The bytes of a bulk string, or the UTF-8 of a status; nil otherwise.
    public var data: Data? {
        switch self {
        case .bulk(let data): return data
        case .status(let text): return Data(text.utf8)
        default: return nil
        }
    }

    /// A bulk string or status as text (invalid UTF-8 repaired with U+FFFD); nil otherwise.
    public var string: String? {
        data.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value of an integer reply; nil otherwise.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements of an array reply; nil otherwise.
    public var elements: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether this is Redis' null.
    public var isNil: Bool { self == .bulk(nil) }

    /// Copies hiredis' reply tree (the caller still frees it with `freeReplyObject`).
    /// - Throws: ``RedisError/protocolError(reason:)`` for a reply type hiredis 0.14 does not define.
    init(_ reply: UnsafePointer<redisReply>) throws(RedisError) {
        let node = reply.pointee
        func bytes() -> Data {
            guard let text = node.str, node.len > 0 else { return Data() }
            return Data(bytes: text, count: node.len)
        }
        switch node.type {
        case REDIS_REPLY_STATUS: self = .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: self = .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: self = .integer(Int64(node.integer))
        case REDIS_REPLY_STRING: self = .bulk(bytes())
        case REDIS_REPLY_NIL: self = .bulk(nil)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(node.elements)
            for index in 0..<node.elements {
                guard let element = node.element[index] else {
                    throw .protocolError(reason: "array element \(index) is missing")
                }
                elements.append(try RedisReply(element))
            }
            self = .array(elements)
        default:
            throw .protocolError(reason: "unknown reply type \(node.type)")
        }
    }
}
