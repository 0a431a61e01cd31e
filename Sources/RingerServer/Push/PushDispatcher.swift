import APNs
import FCM
import Foundation
import RingerStore
import RingerWire

/// Decides which pushes a call effect needs and hands each to ``PushDelivery`` with its provider's sender:
/// iOS devices through APNs, Android devices through FCM (a provider without credentials sends nothing).
///
/// Only ``ring(_:device:)`` wakes a device to ring (PushKit VoIP, high-priority FCM data); the update pushes, which
/// stop a ringing phone or tell of a missed call (``update(_:call:devices:ringing:)``), never ring.
final class PushDispatcher: Sendable {
    /// Which credentials push to which app.
    let providers: PushProviderRegistry
    private let delivery: PushDelivery
    private let clock: any ServerClock
    /// Pushes being sent; shutdown lets them finish.
    let pending = InFlightWork()

    /// Creates the dispatcher.
    /// - Parameters:
    ///   - providers: the senders by app: the push providers', and the flags' as the default (a device with neither
    ///     gets no push).
    ///   - delivery: sends, retries and settles every push.
    ///   - clock: the server's clock, for each push's `createdAt`.
    init(providers: PushProviderRegistry, delivery: PushDelivery, clock: any ServerClock) {
        self.providers = providers
        self.delivery = delivery
        self.clock = clock
    }

    /// Waits until every push outcome handed to the store is stored, at most `timeout` seconds.
    /// - Returns: how many were still unstored when it gave up.
    func drainRecords(timeout: TimeInterval) async -> Int {
        await delivery.drainRecords(timeout: timeout)
    }

    /// Wakes one device for a ringing call.
    func ring(_ call: Call, device: Device) async {
        guard pending.enter() else { return }
        defer { pending.leave() }
        await send(PushRequest(.ring, call: call, device: device, now: clock.now()))
    }

    /// Sends the update push of an event (``CallEffect/pushUpdate(_:to:)``, ``PushRequest/Purpose/init(updateFor:)``):
    /// one that stops the ringing for `call.cancelled`, `call.answered_elsewhere` and `call.declined_elsewhere`, a
    /// missed-call notification for `call.unanswered`; other events have none.
    /// - Parameters:
    ///   - type: the event.
    ///   - call: the call after it.
    ///   - devices: the devices to tell.
    ///   - ringing: ids of the devices that may be ringing for the call (sent the ringing push, or acknowledged
    ///     `ringing`).
    func update(_ type: EventType, call: Call, devices: [Device], ringing: Set<String>) async {
        guard let purpose = PushRequest.Purpose(updateFor: type), pending.enter() else { return }
        defer { pending.leave() }
        let now = clock.now()
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                var request = PushRequest(purpose, call: call, device: device, now: now)
                request.deviceMayBeRinging = ringing.contains(device.deviceID)
                group.addTask { await self.send(request) }
            }
        }
    }

    /// Routes a request to its device's provider.
    private func send(_ request: PushRequest) async {
        switch request.device.platform {
        case .ios:
            if let apns = providers.apns(for: request.device) { await delivery.deliver(request, via: apns) }
        case .android:
            if let fcm = providers.fcm(for: request.device) { await delivery.deliver(request, via: fcm) }
        default:
            return
        }
    }
}
