import StrictJSON
import Testing

/// What counts as a repeated name: two members of one object whose names are equal after unescaping (RFC 8259 §8.3),
/// at any depth; the same name in two objects is not one. And what else readers read otherwise.
@Suite struct StrictJSONTests {
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a"), (#"{"a":1,"\u0061":2}"#, #"\u0061"#), (#"{"x":{"b":1,"b":1}}"#, "b"),
        (#"[{"c":1},{"d":1,"d":1}]"#, "d"), (#"{"e":null,"f":[],"e":"x"}"#, "e"),
    ])
    func repeatedNamesAreFound(text: String, name: String) {
        #expect(StrictJSON.refusal(of: Array(text.utf8)) == .repeatedName(name))
    }

    @Test(arguments: [
        #"{"a":1,"b":{"a":1}}"#, #"[{"a":1},{"a":2}]"#, #"{}"#, "42", #""text""#, #"{"s":"a\u0000b"}"#,
        #"{"n":-9223372036854775808,"r":1.5e300,"u":"\ud83d\ude00"}"#,
        #"{"n":140589477972108753827277968506880}"#,
    ])
    func textEveryReaderReadsAlikeIsAccepted(text: String) {
        #expect(StrictJSON.refusal(of: Array(text.utf8)) == nil)
    }

    /// Found by review: anything Jansson stops at before the repetition hid it (the check said nothing), while
    /// JSONDecoder read past it and kept the first `callee`. (An integer past 64 bits is a double to both.)
    @Test(arguments: [
        #"{"\u0000":0,"callee":"bob","callee":"carol"}"#,
        #"{"n":1e400,"callee":"bob","callee":"carol"}"#, #"{"s":"\udc00","callee":"bob","callee":"carol"}"#,
        "not json", "", #"{"a":"#,
    ])
    func textReadersCouldReadOtherwiseIsRefused(text: String) {
        let refusal = StrictJSON.refusal(of: Array(text.utf8))
        if text.contains(#""callee":"bob","callee""#), !text.contains("u0000"), !text.contains("udc00"),
            !text.contains("e400")
        {
            #expect(refusal == .repeatedName("callee"))
            return
        }
        guard case .ambiguous = refusal else {
            Issue.record("\(text) was not refused")
            return
        }
    }
}

/// JSONWriter (issue 33): compact text, members sorted by name at every depth, arrays in order, a name given twice
/// written once with its last value, and integers at the edges of 64 bits.
@Suite struct JSONWriterTests {
    @Test func membersAreSortedAtEveryDepthAndANameGivenTwiceKeepsItsLastValue() throws {
        let value = JSONWriter.object([
            (
                "b",
                .array([
                    .integer(Int64.min), .integer(Int64.max), .bool(false),
                    .object([("y", .bool(true)), ("x", .string(""))]),
                ])
            ),
            ("a", .string("first")), ("a", .string("second")),
        ])
        let text = String(decoding: try #require(value.bytes()), as: UTF8.self)
        #expect(text == #"{"a":"second","b":[-9223372036854775808,9223372036854775807,false,{"x":"","y":true}]}"#)
        #expect(StrictJSON.refusal(of: Array(text.utf8)) == nil)
    }
}
