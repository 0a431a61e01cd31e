@preconcurrency import CallKit
import Foundation
@preconcurrency import Intents
import RingerKit
import RingerKitAppleMirrored
@testable import RingerReactNativeMirrored
import RingerTestSupport
import RingerWire
import Testing

/// What survives a launch, and what happens before JavaScript: the stored session logs in natively, a call answered
/// on the lock screen before JavaScript attached is replayed to it once, the history outlives the process.
@Suite struct HostLaunchTests {
    @Test func theSessionIsKeptUntilLogoutAndLogsInAtTheNextLaunch() async throws {
        let harness = HostHarness()
        harness.host.start()
        let token = HostHarness.token(for: "bob")
        _ = try await harness.host.login(userToken: token)
        let file = harness.folder.appendingPathComponent("session.json")
        #expect(harness.storedSession() == ["userToken": token, "userId": "bob", "server": "http://127.0.0.1:9"])

        let nextLaunch = HostHarness(folder: harness.folder)
        nextLaunch.host.start()
        #expect(try nextLaunch.phone().registrar.status.isLoggedIn)
        #expect(try await nextLaunch.host.configure(server: nil).userID == "bob")
        try await nextLaunch.host.logout()
        #expect(!FileManager.default.fileExists(atPath: file.path))

        let afterLogout = HostHarness(folder: harness.folder)
        afterLogout.host.start()
        #expect(try !afterLogout.phone().registrar.status.isLoggedIn)
    }

    /// A VoIP push launches the app after a restart, before the first unlock: `session.json` is there but cannot be
    /// read. The phone starts logged out and keeps the file; a notification while still locked changes nothing; the
    /// unlock logs bob in, once (a later notification does not read the file again).
    @Test func aSessionUnreadableBeforeTheFirstUnlockLogsInWhenProtectedDataBecomesAvailable() async throws {
        let launch = try await HostHarness.loggedIn()
        let stored = try #require(launch.storedSession())
        let files = LockedFiles()
        let harness = HostHarness(folder: launch.folder, readFile: files.read)
        harness.host.start()
        let registrar = try harness.phone().registrar
        #expect(!registrar.status.isLoggedIn)
        #expect(harness.storedSession() == stored)
        #expect(harness.host.withState { $0.session } == nil)

        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(!registrar.status.isLoggedIn)

        files.unlock()
        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(registrar.status.isLoggedIn)
        #expect(try await harness.host.configure(server: nil).userID == "bob")
        #expect(harness.storedSession() == stored)
        #expect(harness.createdPhones.count == 1)

        let reads = files.readCount("session.json")
        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(files.readCount("session.json") == reads)
    }

    /// No `session.json` at all is a logged-out phone, not a locked one: nothing waits for the unlock.
    @Test func aMissingSessionIsNotReadAgainWhenProtectedDataBecomesAvailable() throws {
        let files = LockedFiles()
        let harness = HostHarness(readFile: files.read)
        harness.host.start()
        #expect(try !harness.phone().registrar.status.isLoggedIn)
        #expect(files.readCount("session.json") == 1)
        #expect(!harness.host.withState { $0.sessionLocked })

        files.unlock()
        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(files.readCount("session.json") == 1)
        #expect(try !harness.phone().registrar.status.isLoggedIn)
    }

    /// JavaScript logged in before the unlock (its own storage readable): the unlock leaves that login alone.
    @Test func aLoginBeforeTheUnlockWinsOverTheLockedSession() async throws {
        let launch = try await HostHarness.loggedIn()
        let files = LockedFiles()
        let harness = HostHarness(folder: launch.folder, readFile: files.read)
        harness.host.start()
        let fresh = HostHarness.token(for: "bob", serial: 1)
        _ = try await harness.host.login(userToken: fresh)

        files.unlock()
        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(harness.host.withState { $0.session?.userToken } == fresh)
        #expect(harness.storedSession()?["userToken"] == fresh)
        #expect(try harness.phone().registrar.status.isLoggedIn)
    }

    /// A group call's push rings with its `group`, and JavaScript's `incoming` carries it (count, some others by name).
    @Test func anIncomingGroupCallTellsJavaScriptThePushsGroup() async throws {
        let launch = try await HostHarness.loggedIn()
        let harness = HostHarness(folder: launch.folder)
        harness.host.start()
        let group = VoIPPush.Group(count: 3, others: [Party(id: "carol", name: "Carol"), Party(id: "dave")])
        let callID = try await harness.ring(group: group)
        let events = HostHarness.callEvents(harness.attach().replay)
        #expect(
            events == [
                .incoming(
                    callID: callID, caller: Party(id: "alice", name: "Alice"), hasVideo: false,
                    group: BridgeGroup(group))
            ])
        // As the bridge hands it to JavaScript: a name the push left out is null, not missing.
        let others = (events.first?.foundationObject["group"] as? [String: Any])?["others"] as? [[String: Any]]
        #expect(others?.map { $0["id"] as? String } == ["carol", "dave"])
        #expect(others?.last?["name"] is NSNull)
    }

    /// The cold start the package exists for: a VoIP push launches the app, the user answers on CallKit before
    /// JavaScript runs; JavaScript's first `getInitialEvents()` hears the incoming call and its answer, once.
    @Test func aCallAnsweredBeforeJavaScriptAttachedIsReplayedOnce() async throws {
        let launch = try await HostHarness.loggedIn()

        // The next launch, woken by the push: the stored session logs in, nobody has attached.
        let harness = HostHarness(folder: launch.folder)
        harness.host.start()
        let callID = try await harness.ring()
        let uuid = try #require(UUID(uuidString: callID))
        let provider = try harness.phone().callKit.provider
        let answer = CXAnswerCallAction(call: uuid)
        provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        provider.mirrorActivateAudioSession()
        let host = harness.host
        #expect(await eventually(within: 5) { (try? host.calls().first?.state) == "active" })
        try await Task.sleep(for: .milliseconds(100))

        let media = harness.server.media(callID)
        let replay = harness.attach().replay
        #expect(
            HostHarness.callEvents(replay) == [
                .incoming(callID: callID, caller: Party(id: "alice", name: "Alice"), hasVideo: false),
                .accepted(callID: callID, direction: .incoming, media: media),
            ])
        #expect(harness.attach().replay.isEmpty)
        #expect(harness.emitted.all.isEmpty)

        // Live from now on; the caller hangs up.
        let sockets = harness.sockets
        #expect(await eventually(within: 5) { sockets.connections == 1 })
        // The stream keeps bob's resume point in `UserDefaults.standard` across test runs and drops events at or
        // below it: a sequence number from the clock is always newer.
        let seq = Int64(Date().timeIntervalSince1970 * 1000)
        let call = harness.server.call(callID, .ended, caller: "alice", callee: "bob")
        try harness.sockets.deliver(CallEvent(seq: seq, type: .callEnded, call: call))
        let emitted = harness.emitted
        let ended = BridgeEvent.ended(callID: callID, reason: "remote_ended", serverReason: "ended")
        #expect(await eventually(within: 5) { HostHarness.callEvents(emitted.all) == [ended] })
        let entry = try #require(try host.callHistory(limit: 10).first)
        #expect(entry.callID == callID)
        #expect(entry.answered)
        #expect(entry.reason == "remote_ended")
        #expect(entry.serverReason == "ended")
        #expect(entry.peer == Party(id: "alice", name: "Alice"))
    }

    @Test func theHistoryOutlivesTheProcess() async throws {
        let harness = try await HostHarness.loggedIn()
        let first = try await harness.ring()
        try await harness.host.decline(callID: first)
        let second = try await harness.ring()
        try await harness.host.hangUp(callID: second)
        let host = harness.host
        #expect(await eventually(within: 5) { (try? host.callHistory(limit: 10).count) == 2 })

        let nextLaunch = HostHarness(folder: harness.folder)
        let entries = try nextLaunch.host.callHistory(limit: 100)
        #expect(entries.map(\.callID) == [second, first])
        #expect(entries.allSatisfy { $0.reason == "local" && !$0.answered && $0.direction == "incoming" })
        #expect(try nextLaunch.host.callHistory(limit: 1).map(\.callID) == [second])
        #expect(try nextLaunch.host.callHistory(limit: 0).isEmpty)
    }

    /// A VoIP push launches the app after a restart, before the first unlock: `call-history.json` is there but cannot
    /// be read. The calls of that launch are not saved over it; at the unlock they go before the kept ones, a call id
    /// both hold once (as recorded since launch), and the whole is saved.
    @Test func aHistoryUnreadableBeforeTheFirstUnlockIsMergedAtTheUnlockNotOverwritten() async throws {
        let launch = try await HostHarness.loggedIn()
        let first = try await launch.ring()
        try await launch.host.decline(callID: first)
        let second = try await launch.ring()
        try await launch.host.decline(callID: second)
        let host = launch.host
        #expect(await eventually(within: 5) { (try? host.callHistory(limit: 10).count) == 2 })
        let file = launch.folder.appendingPathComponent("call-history.json")
        let kept = try Data(contentsOf: file)
        let keptSecond = try #require(try host.callHistory(limit: 1).first)

        let files = LockedFiles(only: ["call-history.json"])
        let harness = HostHarness(folder: launch.folder, readFile: files.read)
        harness.host.start()
        #expect(try harness.host.callHistory(limit: 100).isEmpty)
        let third = try await harness.ring()
        try await harness.host.decline(callID: third)
        _ = try await harness.ring(callID: second)
        try await harness.host.decline(callID: second)
        let locked = harness.host
        #expect(await eventually(within: 5) { (try? locked.callHistory(limit: 10).map(\.callID)) == [second, third] })
        #expect(try Data(contentsOf: file) == kept)

        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(try Data(contentsOf: file) == kept)

        files.unlock()
        LockedFiles.postProtectedDataDidBecomeAvailable()
        let merged = try harness.host.callHistory(limit: 100)
        #expect(merged.map(\.callID) == [second, third, first])
        #expect(try #require(merged.first).startedAt >= keptSecond.endedAt)
        let nextLaunch = HostHarness(folder: launch.folder)
        #expect(try nextLaunch.host.callHistory(limit: 100) == merged)

        let reads = files.readCount("call-history.json")
        LockedFiles.postProtectedDataDidBecomeAvailable()
        #expect(files.readCount("call-history.json") == reads)
    }

    @Test func theHistoryMergedAtTheUnlockKeepsTheNewestHundredOnce() {
        func entry(_ callID: String) -> HistoryEntry {
            HistoryEntry(
                callID: callID, direction: "incoming", peer: Party(id: "alice"), hasVideo: false, startedAt: 0,
                answered: false, endedAt: 0, reason: "local", serverReason: nil)
        }
        var history = CallHistory()
        for index in 0..<3 {
            _ = history.record(
                .incoming(callID: "new-\(index)", caller: Party(id: "alice"), hasVideo: false), at: Date())
            _ = history.record(.ended(callID: "new-\(index)", reason: "remote_ended", serverReason: nil), at: Date())
        }
        let stored = [entry("old-0"), entry("new-1")] + (1..<99).map { entry("old-\($0)") }
        history.merge(stored: stored)
        #expect(history.entries.count == CallHistory.limit)
        #expect(history.entries.prefix(4).map(\.callID) == ["new-2", "new-1", "new-0", "old-0"])
        #expect(history.entries[1].reason == "remote_ended")
        #expect(history.entries.last?.callID == "old-96")
        #expect(Set(history.entries.map(\.callID)).count == CallHistory.limit)
    }

    @Test func theHistoryKeepsTheNewestHundred() {
        var history = CallHistory()
        let party = Party(id: "alice")
        for index in 0..<150 {
            let callID = "call-\(index)"
            _ = history.record(.incoming(callID: callID, caller: party, hasVideo: false), at: Date())
            if index.isMultiple(of: 2) {
                _ = history.record(
                    .accepted(callID: callID, direction: .incoming, media: MediaSession(url: "wss://m", token: "t")),
                    at: Date())
            }
            let changed = history.record(.ended(callID: callID, reason: "local", serverReason: nil), at: Date())
            #expect(changed)
        }
        #expect(history.entries.count == CallHistory.limit)
        #expect(history.entries.first?.callID == "call-149")
        #expect(history.entries.last?.callID == "call-50")
        #expect(history.entries.first?.answered == false)
        #expect(history.entries[1].answered)
        let unknown = history.record(.ended(callID: "never-rang", reason: "local", serverReason: nil), at: Date())
        #expect(!unknown)
    }

    @Test func errorsAndValuesReachJavaScriptAsReactNativeTakesThem() async throws {
        let settled = Recorder<String>()
        func promise() -> RingerPromise {
            RingerPromise(
                resolve: { value in
                    let json =
                        (try? JSONSerialization.data(
                            withJSONObject: value ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed]))
                    settled.append("resolve " + String(decoding: json ?? Data(), as: UTF8.self))
                },
                reject: { code, _, error in
                    let info = error.userInfo
                    settled.append(
                        "reject \(code) \(info["problemType"] as? String ?? "-") \(info["status"] as? Int ?? 0)")
                })
        }
        let problem = Problem(type: "https://ringer.dev/problems/busy", title: "Busy", status: 409)
        promise().settle { throw RingerAPIError.problem(problem) }
        promise().settle { throw RingerAPIError.transport("offline") }
        promise().settle { throw RingerBridgeError.callInProgress }
        promise().settle { throw CancellationError() }
        promise().settle { LoginResult(userID: "bob") }
        promise().settle {}
        #expect(await eventually(within: 5) { settled.all.count == 6 })
        #expect(
            Set(settled.all) == [
                "reject server_refused https://ringer.dev/problems/busy 409", "reject network - 0",
                "reject call_in_progress - 0", "reject native - 0", #"resolve {"userId":"bob"}"#, "resolve null",
            ])

        let state = NativeState(server: nil, deviceID: "d", userID: nil, calls: [], readiness: [])
        let object = try #require(BridgeJSON.foundationObject(state) as? [String: Any])
        #expect(object["server"] is NSNull)
        #expect(object["userId"] is NSNull)
        #expect(object["platform"] as? String == "ios")
    }

    /// A tap on a Ringer call in Recents that launched the app reaches JavaScript's first `getInitialEvents()`; one while
    /// JavaScript is attached is emitted at once; another app's call or another activity is left to the app. Nothing of
    /// it enters the call history (no call happened), and the app need not be logged in: JavaScript decides.
    @Test func aTapInRecentsReachesJavaScriptAsCallBackRequested() async throws {
        let harness = HostHarness()
        harness.host.start()
        #expect(harness.host.handle(userActivity: recentsTap("alice")))
        #expect(!harness.host.handle(userActivity: NSUserActivity(activityType: "NSUserActivityTypeBrowsingWeb")))
        #expect(!harness.host.handle(userActivity: recentsTap("15550100", type: .phoneNumber)))
        let replay = harness.attach().replay.filter { $0.type == "callBackRequested" }
        #expect(replay == [.callBackRequested(userID: "alice", hasVideo: false)])

        #expect(harness.host.handle(userActivity: recentsTap("carol", .videoCall)))
        let emitted = harness.emitted
        #expect(
            await eventually(within: 5) {
                emitted.all.filter { $0.type == "callBackRequested" } == [
                    .callBackRequested(userID: "carol", hasVideo: true)
                ]
            })
        #expect(try harness.host.callHistory(limit: 10).isEmpty)
        let object = BridgeEvent.callBackRequested(userID: "carol", hasVideo: true).foundationObject
        #expect(object["userId"] as? String == "carol")
        #expect(object["hasVideo"] as? Bool == true)
    }

    /// Expo's `ExpoAppDelegate` calls the subscriber through `UIApplicationDelegate`: each method must be the
    /// protocol's witness (a misspelt one would leave the mirror's do-nothing default to be called).
    @MainActor @Test func theExpoSubscriberStartsTheHostAtLaunch() {
        let launch = ExpoLaunch.run()
        #expect(launch.finishedLaunching)
        #expect(launch.registeredForRemoteNotifications)
        #expect(launch.fetchResult == "noData")
        #expect(launch.continuedCallBack, "a tap in Recents is the subscriber's")
        #expect(!launch.continuedOtherActivity, "a universal link is left to the app's own handlers")
        // The process's host is started: its methods no longer say start() is missing.
        #expect(RingerReactNative.shared.withState { $0.started })
    }
}
