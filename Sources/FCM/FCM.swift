/// Firebase Cloud Messaging HTTP v1 (Google: "Firebase Cloud Messaging HTTP v1 API").
///
/// The provider library for Android ringing: reading a service-account file, the OAuth2 JWT grant and its
/// access-token cache, building `messages:send` requests, and the table of FCM error codes.
public enum FCM {
    /// The OAuth2 scope a messaging access token needs.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
}
