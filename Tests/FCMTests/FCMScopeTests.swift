import FCM
import Testing

@Suite struct FCMScopeTests {
    @Test func messagingScopeIsGooglesFirebaseMessagingScope() {
        #expect(FCM.messagingScope == "https://www.googleapis.com/auth/firebase.messaging")
    }
}
