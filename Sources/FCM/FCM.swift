/// Firebase Cloud Messaging HTTP v1 (Google: "Firebase Cloud Messaging HTTP v1 API").
///
/// The provider library for Android ringing: reading a service-account file (``FCMServiceAccount``), the
/// OAuth2 JWT grant and its access-token cache (``FCMAccessTokenSource``), the `messages:send` body
/// (``FCMMessage``), the client that sends it (``FCMClient``), Google's answer (``FCMResponse``) and the one
/// table of what each answer means (``FCMResponseAction``). docs/fcm.md is the contract.
public enum FCM {
    /// The OAuth2 scope a messaging access token needs.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    /// Google's FCM host; a sandbox replaces it through ``FCMClient/Configuration/baseURL``.
    public static let defaultBaseURL = "https://fcm.googleapis.com"

    /// The largest data payload FCM accepts, in bytes: the UTF-8 bytes of every key and value of `data`
    /// added up. More gets `INVALID_ARGUMENT` "Android message is too big" (Google: "About FCM messages").
    public static let maximumDataPayloadBytes = 4096

    /// The longest `android.ttl` FCM accepts: 28 days, in seconds (Google: `AndroidConfig.ttl`).
    public static let maximumTTLSeconds: Int64 = 2_419_200

    /// The OAuth2 `grant_type` of a JWT bearer grant (RFC 7523 §2.1; Google: "Using OAuth 2.0 for Server to
    /// Server Applications").
    public static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
}
