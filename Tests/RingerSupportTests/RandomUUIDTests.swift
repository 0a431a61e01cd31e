import Foundation
import RingerSupport
import Testing

/// Call ids and `apns-id`s: random version 4 UUIDs from one `getrandom`, written in lowercase.
struct RandomUUIDTests {
    @Test func randomUUIDsAreVersion4WithTheRFCVariantAndDistinct() {
        let ids = (0..<1000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.uuid.6 >> 4 == 4)  // version 4
            #expect(id.uuid.8 >> 6 == 2)  // RFC 9562 variant
        }
    }

    @Test func lowercaseTextIsTheUUIDStringInLowercase() {
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        for id in (0..<200).map({ _ in UUID.random() }) + [zero] {
            #expect(id.lowercaseText == id.uuidString.lowercased())
        }
        let fixed = UUID(uuidString: "4DC1A4B5-0F5A-4E5A-9C3C-1B2B3C4DFFFF")!
        #expect(fixed.lowercaseText == "4dc1a4b5-0f5a-4e5a-9c3c-1b2b3c4dffff")
    }
}
