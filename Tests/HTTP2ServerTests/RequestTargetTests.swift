import Testing

@testable import HTTP2Server

/// Splitting and decoding `:path` into HTTPRequest's path and query.
struct RequestTargetTests {
    @Test("Path and query are percent-decoded; + is a space in the query only")
    func decoding() {
        let (path, query) = RequestTarget.split("/3/device/a%2Fb+c?x=1&y=a+b%26c&flag&=empty&x=2")
        #expect(path == "/3/device/a/b+c")
        #expect(query == ["x": "2", "y": "a b&c", "flag": "", "": "empty"])
    }

    @Test("Malformed escapes stay as written; invalid UTF-8 becomes U+FFFD")
    func malformed() {
        #expect(RequestTarget.split("/a%2").path == "/a%2")
        #expect(RequestTarget.split("/a%zz%4").path == "/a%zz%4")
        #expect(RequestTarget.split("/%FF").path == "/\u{FFFD}")
        #expect(RequestTarget.split("").path == "")
        #expect(RequestTarget.split("?").query.isEmpty)
    }
}
