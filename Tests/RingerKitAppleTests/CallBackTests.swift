import Foundation
@preconcurrency import Intents
import RingerKit
import RingerKitAppleMirrored
import Testing

/// Calling back from Recents (docs/decisions/0008 §4): the `INStartCallIntent` iOS hands the app names the handle
/// Ringer reported, the other party's user id.
@Suite struct CallBackTests {
    static func activity(
        _ handle: String?, _ capability: INCallCapability = .audioCall, type: INPersonHandleType = .unknown
    ) -> NSUserActivity {
        let activity = NSUserActivity(activityType: "INStartCallIntent")
        let person = INPerson(personHandle: handle.map { INPersonHandle(value: $0, type: type) })
        activity.interaction = INInteraction(
            intent: INStartCallIntent(contacts: [person], callCapability: capability))
        return activity
    }

    @Test func aTapInRecentsNamesThePersonToCallBackAndWhetherWithVideo() {
        #expect(
            RingerPhone.callBackRequest(from: Self.activity("alice"))
                == CallBackRequest(handle: "alice", hasVideo: false))
        #expect(RingerPhone.callBackRequest(from: Self.activity("bob@example", .videoCall))?.hasVideo == true)
    }

    @Test func anythingElseIsNoCallBack() {
        #expect(RingerPhone.callBackRequest(from: NSUserActivity(activityType: "com.example.browse")) == nil)
        #expect(RingerPhone.callBackRequest(from: Self.activity(nil)) == nil, "a contact without a handle")
        #expect(RingerPhone.callBackRequest(from: Self.activity("+1 555 0100")) == nil, "not a Ringer user id")
        #expect(RingerPhone.callBackRequest(from: Self.activity("")) == nil)
        #expect(
            RingerPhone.callBackRequest(from: Self.activity("15550100", type: .phoneNumber)) == nil,
            "a phone number of another app's call, though it would be a valid user id")
        #expect(RingerPhone.callBackRequest(from: Self.activity("bob@example.com", type: .emailAddress)) == nil)
        let noContacts = NSUserActivity(activityType: "INStartCallIntent")
        noContacts.interaction = INInteraction(intent: INStartCallIntent(contacts: nil, callCapability: .audioCall))
        #expect(RingerPhone.callBackRequest(from: noContacts) == nil)
    }
}
