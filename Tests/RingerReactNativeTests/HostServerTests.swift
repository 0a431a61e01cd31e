import Foundation
import RingerKit
import RingerKitAppleMirrored
@testable import RingerReactNativeMirrored
import RingerTestSupport
import RingerWire
import Testing

/// Which server the phone uses and whose session it keeps: `configure` starts the host when the app has not, the
/// app's own default is never pinned, and a token made on one server never logs in on another.
@Suite struct HostServerTests {
    let token = HostHarness.token(for: "bob")

    /// Expo's template starts React Native before the AppDelegate subscribers' `didFinishLaunching`: JavaScript's
    /// `configure` comes first, starts the host and logs the stored user in; the subscriber's `start()` adds nothing.
    @Test func configureStartsTheHostWhenTheAppDelegateHasNotYet() async throws {
        let launch = try await HostHarness.loggedIn()

        let harness = HostHarness(folder: launch.folder)
        let state = try await harness.host.configure(server: nil)
        #expect(state.server == "http://127.0.0.1:9")
        #expect(state.userID == "bob")
        #expect(try harness.phone().registrar.status.isLoggedIn)
        harness.host.start()
        #expect(harness.createdPhones.count == 1)
        #expect(try harness.host.calls().isEmpty)
    }

    /// An app that passes its own default to every `configure` never pins it: a new app version's default wins.
    @Test func configureWithTheAppsDefaultServerRemovesTheStoredChoice() async throws {
        let harness = HostHarness()
        let host = harness.host
        host.start()
        let file = harness.folder.appendingPathComponent("server.json")
        _ = try await host.configure(server: "https://ringer.example.com")
        #expect(FileManager.default.fileExists(atPath: file.path))
        _ = try await host.configure(server: nil)
        #expect(FileManager.default.fileExists(atPath: file.path))
        // The default, spelt another way; the phone running keeps its server.
        #expect(try await host.configure(server: "HTTP://127.0.0.1:9/").server == "http://127.0.0.1:9")
        #expect(!FileManager.default.fileExists(atPath: file.path))

        let nextLaunch = HostHarness(folder: harness.folder, infoServer: "http://127.0.0.1:10")
        nextLaunch.host.start()
        #expect(try nextLaunch.phone().server.absoluteString == "http://127.0.0.1:10")
    }

    /// A token belongs to the server that accepted it: after a move to another server, the next launch starts
    /// logged out and the session is gone.
    @Test func aSessionMadeOnAnotherServerIsDeletedAtLaunch() async throws {
        let harness = try await HostHarness.loggedIn()
        // This launch keeps its server and its user.
        #expect(try await harness.host.configure(server: "https://ringer.example.com").userID == "bob")

        let nextLaunch = HostHarness(folder: harness.folder)
        nextLaunch.host.start()
        #expect(try nextLaunch.phone().server.absoluteString == "https://ringer.example.com")
        #expect(try !nextLaunch.phone().registrar.status.isLoggedIn)
        #expect(try await nextLaunch.host.configure(server: nil).userID == nil)
        #expect(nextLaunch.storedSession() == nil)
    }

    /// With no server at launch the phone is created by `configure`, which drops a session of another server too.
    @Test func aSessionMadeOnAnotherServerIsDeletedWhenConfigureCreatesThePhone() async throws {
        let harness = HostHarness(infoServer: nil)
        try harness.storeSession(["userToken": token, "userId": "bob", "server": "https://old.example.com"])
        harness.host.start()
        #expect(harness.createdPhones.isEmpty)
        #expect(try await harness.host.configure(server: "http://127.0.0.1:9").userID == nil)
        #expect(try !harness.phone().registrar.status.isLoggedIn)
        #expect(harness.storedSession() == nil)
    }

    /// A session file written before sessions named their server was made on the server in use at launch; it is
    /// written again naming it, so a later move is noticed.
    @Test func aSessionThatNamesNoServerCountsAsMadeOnTheServerInUse() async throws {
        let harness = HostHarness()
        try harness.storeSession(["userToken": token, "userId": "bob"])
        harness.host.start()
        #expect(try harness.phone().registrar.status.isLoggedIn)
        #expect(try await harness.host.configure(server: nil).userID == "bob")
        #expect(harness.storedSession() == ["userToken": token, "userId": "bob", "server": "http://127.0.0.1:9"])
    }
}
