import Foundation

/// Decodes the JSON object a peer printed on its last stdout line.
/// - Parameter text: The peer's stdout (or one line of it).
/// - Returns: The object, or nil when the last line is not a JSON object.
func jsonObject(_ text: String) -> [String: Any]? {
    guard let line = text.split(separator: "\n").last,
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
    else { return nil }
    return object as? [String: Any]
}
