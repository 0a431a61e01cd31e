import StrictJSON
import Testing

/// What counts as a repeated name: two members of one object whose names are equal after unescaping (RFC 8259 §8.3),
/// at any depth; the same name in two objects is not one.
@Suite struct StrictJSONTests {
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a"), (#"{"a":1,"\u0061":2}"#, #"\u0061"#), (#"{"x":{"b":1,"b":1}}"#, "b"),
        (#"[{"c":1},{"d":1,"d":1}]"#, "d"), (#"{"e":null,"f":[],"e":"x"}"#, "e"),
    ])
    func repeatedNamesAreFound(text: String, name: String) {
        #expect(StrictJSON.duplicateName(in: Array(text.utf8)) == name)
    }

    @Test(arguments: [#"{"a":1,"b":{"a":1}}"#, #"[{"a":1},{"a":2}]"#, #"{}"#, "42", #""text""#, "not json", "", #"{"a":"#])
    func anythingElseIsNoRepetition(text: String) {
        #expect(StrictJSON.duplicateName(in: Array(text.utf8)) == nil)
    }
}
