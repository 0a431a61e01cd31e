import APNs
import FCM
import Foundation
import JWT

/// Loading the push providers' credentials at start, so that a wrong file stops the server with a message naming
/// the flag instead of failing every call later.
extension RingerServer {
    /// Loads and checks the APNs credentials, so a wrong file or password stops the server at start
    /// instead of failing every call later.
    /// - Throws: ``ConfigurationError`` naming the flag (never a secret's value).
    static func authentication(
        _ credentials: ServerConfiguration.APNsSettings.Credentials
    ) throws -> APNsClient.Authentication {
        switch credentials {
        case .signingKey(let file, let keyID, let teamID):
            let pem: String
            do {
                pem = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError("cannot read --apns-key-file \(file)")
            }
            do {
                return .providerToken(.init(key: try JWTSigningKey(pem: pem), keyID: keyID, teamID: teamID))
            } catch {
                throw ConfigurationError("--apns-key-file \(file) is not a PKCS#8 EC private key (.p8)")
            }
        case .certificate(let file, let keyFile, let password):
            do {
                return .certificate(try APNsCertificate.load(file: file, keyFile: keyFile, password: password))
            } catch let error as APNsCertificateError {
                throw ConfigurationError(Self.explain(error, file: file, keyFile: keyFile))
            }
        }
    }

    /// Loads every FCM service-account file and makes the client, so a bad file stops the server at start.
    /// - Throws: ``ConfigurationError`` naming the file and the field to fix (never key material).
    static func fcmClient(_ settings: ServerConfiguration.FCMSettings) throws -> FCMClient {
        var accounts: [FCMServiceAccount] = []
        for file in settings.serviceAccountFiles {
            do {
                accounts.append(try FCMServiceAccount(contentsOfFile: file))
            } catch {
                throw ConfigurationError("--fcm-service-account \(file): \(error.detail)")
            }
        }
        do {
            return try FCMClient(
                configuration: .init(
                    serviceAccounts: accounts, baseURL: settings.baseURL,
                    caFile: settings.caFile))
        } catch {
            throw ConfigurationError("--fcm-service-account / --fcm-host / --fcm-ca-file: \(error)")
        }
    }

    /// A certificate problem in the terms of the flags that caused it (never the password).
    static func explain(_ error: APNsCertificateError, file: String, keyFile: String?) -> String {
        switch error {
        case .passwordNeeded:
            return
                "--apns-cert-file \(file): the file is encrypted and no password was given; set RINGER_APNS_CERT_PASSWORD"
        case .noPrivateKey:
            return keyFile.map { "--apns-cert-key-file \($0) holds no private key" }
                ?? "--apns-cert-file \(file) holds no private key; give the key file with --apns-cert-key-file"
        case .keyMismatch:
            return keyFile.map {
                "--apns-cert-key-file \($0): the private key does not belong to --apns-cert-file \(file)"
            }
                ?? "--apns-cert-file \(file): \(error.description)"
        default:
            return "--apns-cert-file \(file): \(error.description)"
        }
    }
}
