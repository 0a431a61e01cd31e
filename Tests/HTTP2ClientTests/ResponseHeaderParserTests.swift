import Testing
@testable import HTTP2Client

@Suite struct ResponseHeaderParserTests {
    private func parse(_ lines: [String]) -> ResponseHeaderParser {
        var parser = ResponseHeaderParser()
        lines.forEach { parser.consume($0) }
        return parser
    }

    @Test func http2StatusLineWithoutReasonPhrase() {
        let parser = parse(["HTTP/2 200 \r\n", "apns-id: 0A1B\r\n", "content-length: 0\r\n", "\r\n"])
        #expect(parser.status == 200)
        #expect(parser.fields == ["apns-id": "0A1B", "content-length": "0"])
    }

    @Test func namesAreLowercasedAndValuesTrimmed() {
        let parser = parse(["HTTP/1.1 404 Not Found\r\n", "Apns-ID:  \tX-1 \r\n", "X-Empty:\r\n", "\r\n"])
        #expect(parser.status == 404)
        #expect(parser.fields["apns-id"] == "X-1")
        #expect(parser.fields["x-empty"] == "")
    }

    @Test func interimResponsesAreDiscarded() {
        let parser = parse(["HTTP/1.1 100 Continue\r\n", "X-Interim: yes\r\n", "\r\n",
                            "HTTP/1.1 201 Created\r\n", "Location: /a\r\n", "\r\n"])
        #expect(parser.status == 201)
        #expect(parser.fields == ["location": "/a"])
    }

    @Test func repeatedFieldsJoinAndFoldedLinesContinue() {
        let parser = parse(["HTTP/2 200\r\n", "vary: a\r\n", "Vary: b\r\n", "x-long: one\r\n", " two\r\n", "\r\n"])
        #expect(parser.fields["vary"] == "a, b")
        #expect(parser.fields["x-long"] == "one two")
    }

    @Test func malformedLinesAreIgnored() {
        let parser = parse(["HTTP/2 abc\r\n", "no colon here\r\n", ": no name\r\n", "ok: 1\n"])
        #expect(parser.status == nil)
        #expect(parser.fields == ["ok": "1"])
    }
}

@Suite struct ResponseHeaderParserByteTests {
    @Test func bytesAsLibcurlPassesThem() {
        var parser = ResponseHeaderParser()
        for line in ["HTTP/2 410\r\n", "APNS-ID: 5E1B\r\n", "\r\n"] {
            Array(line.utf8).withUnsafeBytes { parser.consume($0) }
        }
        #expect(parser.status == 410)
        #expect(parser.fields == ["apns-id": "5E1B"])
    }

    @Test func statusMustBeDigits() {
        var parser = ResponseHeaderParser()
        parser.consume("HTTP/2 -1\r\n")
        #expect(parser.status == nil)
        parser.consume("HTTP/1.1   204   No Content\r\n")
        #expect(parser.status == 204)
    }
}
