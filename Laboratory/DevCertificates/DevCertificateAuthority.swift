import COpenSSL
public import Foundation

/// A throw-away certificate authority for the local APNs sandbox, the demo and tests.
///
/// Creates an EC P-256 root (basicConstraints CA:TRUE) and issues TLS server certificates signed with
/// SHA-256 whose subjectAltName lists the given DNS names and IP addresses. Never trust such a CA
/// outside development. A value type holding PEM text; thread-safe. Its description omits the key.
///
/// ```swift
/// let ca = try DevCertificateAuthority.create()
/// let paths = try ca.write(to: directory)   // ca.pem, server.pem, server.key
/// // serve TLS with paths.serverCertificate / paths.serverPrivateKey; clients trust paths.caCertificate
/// ```
public struct DevCertificateAuthority: Sendable, CustomStringConvertible, CustomReflectable {
    /// The default hosts of a loopback server certificate.
    public static let loopbackHosts = ["localhost", "127.0.0.1", "::1"]

    /// The CA certificate as PEM (`BEGIN CERTIFICATE`): what TLS clients must trust.
    public let certificatePEM: String
    /// The CA private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`). Secret: keep it out of logs.
    public let privateKeyPEM: String

    /// Reloads a CA saved earlier from ``certificatePEM`` and ``privateKeyPEM``.
    /// - Parameters:
    ///   - certificatePEM: The CA certificate.
    ///   - privateKeyPEM: Its unencrypted private key.
    /// - Throws: ``DevCertificateError/invalidPEM`` if either cannot be read, the key does not match,
    ///   or the certificate is not a CA.
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        let certificate = try X509Certificate.read(pem: certificatePEM)
        let key = try DevKey.read(pem: privateKeyPEM)
        guard certificate.matches(key) else {
            throw DevCertificateError.invalidPEM("the key does not match the certificate")
        }
        guard certificate.isCertificateAuthority else {
            throw DevCertificateError.invalidPEM("the certificate is not a CA")
        }
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    private init(validatedCertificatePEM: String, privateKeyPEM: String) {
        certificatePEM = validatedCertificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Creates a new self-signed root with a fresh EC P-256 key.
    /// - Parameters:
    ///   - commonName: The subject CN, 1 to 64 characters (RFC 5280 ub-common-name).
    ///   - validDays: Validity in days, 1 to 3650; starts one hour ago to absorb clock skew.
    /// - Returns: The authority.
    /// - Throws: ``DevCertificateError/invalidArgument`` or ``DevCertificateError/crypto``.
    public static func create(
        commonName: String = "Ringer Dev CA", validDays: Int = 30
    ) throws -> DevCertificateAuthority {
        try checkArguments(commonName: commonName, validDays: validDays)
        let key = try DevKey.generateP256()
        let certificate = try X509Certificate.issue(
            commonName: commonName, subjectKey: key, issuer: nil, validDays: validDays,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"),
                (NID_subject_key_identifier, "hash"),
            ])
        return DevCertificateAuthority(
            validatedCertificatePEM: try certificate.pem(), privateKeyPEM: try key.pkcs8PEM())
    }

    /// Issues a TLS server certificate for `hosts`, with a fresh EC P-256 key.
    /// - Parameters:
    ///   - hosts: DNS names and IP addresses (`"::1"`, not `"[::1]"`); the first is also the CN.
    ///   - validDays: Validity in days, 1 to 3650.
    /// - Returns: The leaf certificate PEM and its PKCS#8 private key PEM (secret).
    /// - Throws: ``DevCertificateError/invalidHost``, ``DevCertificateError/invalidArgument``,
    ///   ``DevCertificateError/invalidPEM`` (a damaged CA) or ``DevCertificateError/crypto``.
    public func issueServerCertificate(
        hosts: [String] = DevCertificateAuthority.loopbackHosts, validDays: Int = 30
    ) throws -> (certificatePEM: String, privateKeyPEM: String) {
        let alternativeNames = try SubjectAlternativeNames.configValue(for: hosts)
        try Self.checkArguments(commonName: hosts[0], validDays: validDays)
        let issuer = (
            certificate: try X509Certificate.read(pem: certificatePEM), key: try DevKey.read(pem: privateKeyPEM)
        )
        let key = try DevKey.generateP256()
        let certificate = try X509Certificate.issue(
            commonName: hosts[0], subjectKey: key, issuer: issuer, validDays: validDays,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, alternativeNames),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ])
        return (try certificate.pem(), try key.pkcs8PEM())
    }

    /// Issues a server certificate and writes `ca.pem`, `server.pem` and `server.key` into `directory`.
    /// - Parameters:
    ///   - directory: Created if missing; existing files of those names are replaced.
    ///   - hosts: The server certificate's hosts (see ``issueServerCertificate(hosts:validDays:)``).
    ///   - validDays: The server certificate's validity in days.
    /// - Returns: The three paths.
    /// - Throws: ``DevCertificateError/io`` if writing fails, or any error of
    ///   ``issueServerCertificate(hosts:validDays:)``.
    /// - Note: `server.key` is created with mode 0600 and the certificates with 0644.
    public func write(
        to directory: URL, hosts: [String] = DevCertificateAuthority.loopbackHosts, validDays: Int = 30
    ) throws -> DevCertificatePaths {
        let server = try issueServerCertificate(hosts: hosts, validDays: validDays)
        let paths = DevCertificatePaths(directory: directory)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DevCertificateError.io(
                function: "createDirectory", detail: "\(directory.path): \(error.localizedDescription)")
        }
        try PrivateFile.store(certificatePEM, at: paths.caCertificate, mode: 0o644)
        try PrivateFile.store(server.certificatePEM, at: paths.serverCertificate, mode: 0o644)
        try PrivateFile.store(server.privateKeyPEM, at: paths.serverPrivateKey, mode: 0o600)
        return paths
    }

    /// Names the CA without revealing its key.
    public var description: String {
        "DevCertificateAuthority(certificate: \(certificatePEM.utf8.count) bytes PEM, private key: redacted)"
    }

    /// Shows only the certificate to `dump` and debuggers, never the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["certificatePEM": certificatePEM], displayStyle: .struct)
    }

    private static func checkArguments(commonName: String, validDays: Int) throws(DevCertificateError) {
        guard (1...64).contains(commonName.count) else {
            throw DevCertificateError.invalidArgument("common name must have 1 to 64 characters")
        }
        guard (1...3650).contains(validDays) else {
            throw DevCertificateError.invalidArgument("validDays must be 1...3650")
        }
    }
}
