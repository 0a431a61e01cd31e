import Foundation
import RingerHTTP
import RingerWire
import RingerSupport
import StrictJSON
import Testing

@testable import RingerCore
@testable import RingerServer
@testable import RingerStore

/// A call written with Jansson (issue 33) is the text Ringer's JSON encoder writes, byte for byte: the stored machine
/// and event, a call's answer and a socket's event read the same whichever writer made them.
struct CallJSONWriterTests {
    static let names: [String?] = [
        nil, "Alice", "Zoë Ångström", "O'Brien \"the\" \\ one / two", "📞", "", "tab\tand\nline",
    ]
    static let at = Date(unixMilliseconds: 1_796_000_000_123)

    /// `milliseconds` after ``at``, a whole number of them: a stored timestamp keeps milliseconds only.
    static func after(_ milliseconds: Int64) -> Date { Date(unixMilliseconds: 1_796_000_000_123 + milliseconds) }

    static func leg(_ index: Int, everything: Bool) -> CallLeg {
        var leg = CallLeg(
            user: Party(id: "callee-\(index)", name: names[index % names.count]),
            state: everything ? .accepted : .ringing,
            rungAt: at, expiresAt: after(45000))
        if everything {
            leg.ringingAt = after(500)
            leg.acceptedAt = after(3250)
            leg.acceptedDeviceID = "phone-\(index)"
            leg.endedAt = after(60001)
            leg.endedBy = "callee-\(index)"
            leg.failureReason = "callee-\(index) cannot be reached"
            leg.waiting = index.isMultiple(of: 2)
        }
        return leg
    }

    /// Every property of a call set, as none of the server's calls has them all at once.
    static func everythingCall(legs: Int = 2) -> Call {
        var call = Call(
            callID: UUID.random().lowercaseText, state: .ended, caller: Party(id: "alice", name: "Alice"),
            callee: Party(id: "bob", name: "Bob \"B\" / Ω"), hasVideo: true, createdAt: at,
            expiresAt: after(45000), acceptedAt: after(2000),
            acceptedDeviceID: "bob-iphone", endedAt: after(30500), endedBy: "alice",
            endReason: .connectionLost, failureReason: "bob cannot be reached",
            legs: (0..<legs).map { leg($0, everything: $0.isMultiple(of: 2)) }, answerPolicy: .allMayJoin)
        call.pushes = [
            PushAttempt(
                callID: call.callID, deviceID: "bob-iphone", provider: .apns, pushType: .voip, status: 410,
                reason: "Unregistered", apnsID: UUID.random().lowercaseText, messageName: "projects/p/messages/1",
                latencyMs: 12.5, attempts: 2, sentAt: at, readiness: [.notificationsDisabled], userID: "bob")
        ]
        call.calleeReadiness = [.notificationsDisabled, "a_problem_from_a_newer_app"]
        call.waiting = true
        return call
    }

    static func calls() -> [Call] {
        var calls: [Call] = [everythingCall(), everythingCall(legs: 0)]
        for (index, name) in names.enumerated() {
            calls.append(
                Call(
                    callID: UUID.random().lowercaseText, state: index.isMultiple(of: 2) ? .ringing : .cancelled,
                    caller: Party(id: "caller.\(index)@example", name: name), callee: Party(id: "callee-\(index)"),
                    hasVideo: index.isMultiple(of: 3), createdAt: after(Int64(index)),
                    expiresAt: after(600000)))
        }
        return calls
    }

    static func machines() -> [CallMachine] {
        var machines = calls().map { call in
            CallMachine(
                call: call,
                calleeDevices: [
                    CalleeDevice(id: "bob-iphone", platform: .ios, canBeWoken: true),
                    CalleeDevice(id: "bob-pixel", platform: .android, canBeWoken: false),
                ], ringingDeviceIDs: call.state == .ringing ? [] : ["bob-iphone"])
        }
        var group = CallMachine(
            call: everythingCall(), calleeDevices: [], ringingDeviceIDs: ["a", "b"],
            legs: [
                LegRecord(
                    userID: "callee-0", calleeDevices: [CalleeDevice(id: "d", platform: "web", canBeWoken: false)],
                    ringingDeviceIDs: ["d"], declinedDeviceID: "d", exclusive: true),
                LegRecord(
                    userID: "callee-1", calleeDevices: [], ringingDeviceIDs: [], declinedDeviceID: nil,
                    exclusive: false),
            ])
        group.declinedDeviceID = "bob-pixel"
        group.callWaiting = false
        machines.append(group)
        return machines
    }

    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try RingerJSON.encode(value), as: UTF8.self)
    }

    @Test func aCallIsTheEncodersTextByteForByte() throws {
        for call in Self.calls() {
            #expect(try #require(call.jsonWriter.text) == Self.encoded(call))
            let event = CallEvent(seq: 9_007_199_254_740_993, type: .callIncoming, call: call)
            #expect(try #require(event.jsonWriter.text) == Self.encoded(event))
        }
    }

    @Test func aStoredMachineIsTheEncodersTextAndReadsBackTheSame() throws {
        for machine in Self.machines() {
            let text = try SQLStore.machineText(machine)
            #expect(text == (try Self.encoded(machine)))
            #expect(try SQLStore.decodeText(CallMachine.self, text) == machine)
        }
    }

    @Test func aCallsAnswerIsTheEncodersTextAndShowsPushesAsTheEncoderWritesThem() throws {
        var plain = Self.everythingCall()
        plain.pushes = nil
        let answer = try APIRouter.json(plain, status: 201).body
        #expect(answer == Array(try RingerJSON.encode(plain)))
        // The same text from Jansson: a name with a control character shows which writer wrote the answer.
        plain.caller.name = "unit\u{1F}"
        #expect(String(decoding: try APIRouter.json(plain).body, as: UTF8.self).contains("unit\\u001F"))
        // 12.345 in 17 digits is 12.345000000000001: a call that shows its pushes keeps the encoder's fewest digits.
        var shown = Self.everythingCall()
        shown.pushes?[0].latencyMs = 12.345
        let body = try APIRouter.json(shown).body
        #expect(body == Array(try RingerJSON.encode(shown)))
        #expect(String(decoding: body, as: UTF8.self).contains("\"latency_ms\":12.345,"))
    }

    /// The fixtures set every property, so a property added to one of these types and not to its writer fails the
    /// byte comparisons above instead of going missing from stored calls. A type the writers gain goes in `values`.
    @Test func theFixturesSetEveryPropertyOfEveryWrittenType() throws {
        let machine = try #require(Self.machines().last)
        let call = Self.everythingCall()
        let values: [Any] = [
            call, try #require(call.legs?.first), call.caller, try #require(call.pushes?.first), machine,
            try #require(machine.legs?.first), try #require(machine.legs?.first?.calleeDevices.first),
            CallEvent(seq: 1, type: .callIncoming, call: call),
        ]
        for value in values {
            for child in Mirror(reflecting: value).children {
                let inner = Mirror(reflecting: child.value)
                #expect(
                    !(inner.displayStyle == .optional && inner.children.isEmpty),
                    "\(type(of: value)).\(child.label ?? "?") is nil in every fixture")
            }
        }
    }

    @Test func aControlCharacterIsWrittenInCapitalsAndReadsBackTheSame() throws {
        let call = Call(
            callID: "c", state: .ringing, caller: Party(id: "a", name: "unit\u{1F}"), callee: Party(id: "b"),
            hasVideo: false, createdAt: Self.at, expiresAt: Self.at)
        let text = try #require(call.jsonWriter.text)
        #expect(text.contains("unit\\u001F"))
        #expect(try RingerJSON.decode(Call.self, from: Data(text.utf8)) == call)
    }
}
