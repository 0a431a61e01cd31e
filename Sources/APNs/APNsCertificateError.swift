public import OpenSSLSupport

/// Why an APNs client certificate cannot be used. Never carries the password or key material.
public struct APNsCertificateError: Error, Equatable, Sendable, CustomStringConvertible, OpenSSLFailure {
    private enum Code: Equatable, Sendable {
        case unreadable, crypto, keyMismatch, expired, passwordNeeded, noPrivateKey
    }
    private let code: Code
    /// What went wrong, with the file path or OpenSSL's reason.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The file could not be read.
    public static func unreadable(_ path: String) -> APNsCertificateError {
        APNsCertificateError(.unreadable, "cannot read \(path)")
    }

    /// OpenSSL refused the file: not a certificate/bundle of that format, or a wrong password.
    public static func crypto(function: String, detail: String) -> APNsCertificateError {
        APNsCertificateError(.crypto, "\(function) failed (wrong format or password?): \(detail)")
    }

    /// The bundle or key is encrypted and no password was given.
    public static let passwordNeeded = APNsCertificateError(
        .passwordNeeded, "the file is encrypted and no password was given")

    /// The PEM text that should hold the private key holds none.
    public static let noPrivateKey = APNsCertificateError(.noPrivateKey, "no private key found")

    /// The private key does not belong to the certificate.
    public static let keyMismatch = APNsCertificateError(.keyMismatch, "the private key does not match the certificate")

    /// The certificate is past its end date: APNs refuses it with `BadCertificate`.
    public static func expired(_ notAfter: String) -> APNsCertificateError {
        APNsCertificateError(.expired, "the certificate expired on \(notAfter)")
    }
}

typealias CertificateCall = CheckedOpenSSL<APNsCertificateError>
