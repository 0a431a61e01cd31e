import Foundation
import LibWebSockets
import RingerHTTP
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DescriptorOwnershipTests {
    /// A connection lws cannot adopt (here: reset by the client before the TLS server took it) is closed by lws
    /// itself ("Either returns new wsi bound to accept_fd, or closes accept_fd and returns NULL", lws-adopt.h): the
    /// server must not close that number again, since by then it may be another thread's new descriptor.
    @Test func aConnectionLwsCouldNotAdoptIsClosedOnceNotAgainUnderAnotherThreadsDescriptor() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = WebServer(
            configuration: .init(
                tls: .init(
                    certificatePath: certificates.serverCertificate,
                    privateKeyPath: certificates.serverKey))
        ) { _ in .empty(status: 204) }
        let port = try server.start()
        defer { server.shutdown() }
        let watch = DescriptorWatch()
        // Each client sends a few bytes that are no TLS record and resets at once (SO_LINGER 0): lws fails the
        // connection while adopting it.
        for _ in 0..<400 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard client >= 0 else { continue }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            if connected {
                _ = "GARBAGE\r\n".withCString { send(client, $0, 9, Int32(MSG_NOSIGNAL)) }
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            }
            close(client)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(watch.stop() == 0, "descriptors of another thread were closed under it")
        // The server still serves.
        let answer = try await ChildProcess.run([
            "curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/",
        ])
        #expect(answer.standardOutput == "204")
    }
}
