public import Foundation

/// Where ``DevCertificateAuthority/write(to:hosts:validDays:)`` put its files.
public struct DevCertificatePaths: Sendable, Equatable {
    /// The directory holding the three files.
    public let directory: URL
    /// `ca.pem`: the CA certificate that clients trust.
    public let caCertificate: URL
    /// `server.pem`: the server's leaf certificate.
    public let serverCertificate: URL
    /// `server.key`: the server's PKCS#8 private key, mode 0600.
    public let serverPrivateKey: URL

    /// The standard file names inside `directory`.
    /// - Parameter directory: The directory the files live in.
    public init(directory: URL) {
        self.directory = directory
        caCertificate = directory.appendingPathComponent("ca.pem")
        serverCertificate = directory.appendingPathComponent("server.pem")
        serverPrivateKey = directory.appendingPathComponent("server.key")
    }
}
