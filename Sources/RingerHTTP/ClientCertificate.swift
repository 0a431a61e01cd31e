extension HTTPRequest {
    /// The TLS client certificate a connection presented and the server verified against its client CA
    /// (mutual TLS), as far as request handlers need it.
    ///
    /// Read once per connection when its handshake completes and shared by every request on it. A plain
    /// value; safe to pass between threads.
    public struct ClientCertificate: Sendable, Equatable {
        /// The subject's UID attribute (OID 0.9.2342.19200300.100.1.1), where Apple's push certificates
        /// carry the app's bundle id; nil when the subject has none.
        public var subjectUID: String?
        /// The end of the certificate's validity, seconds since 1970-01-01 UTC.
        public var notAfter: Int64

        /// Creates the value; the server builds these, tests may too.
        /// - Parameters:
        ///   - subjectUID: The subject's UID, if any.
        ///   - notAfter: End of validity, seconds since 1970 (UTC).
        public init(subjectUID: String?, notAfter: Int64) {
            self.subjectUID = subjectUID
            self.notAfter = notAfter
        }
    }
}
