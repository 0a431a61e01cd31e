import Foundation
import RingerSupport

// The phone's audio route (docs/decisions/0008 §2): the call UI adapter reads the system's route and carries out the
// app's choice; ``AudioRouteMachine`` decides.
extension CallCoordinator {
    /// Where the calls' audio goes now and the outputs the system lists, as it last said.
    public var audioRoutes: AudioRoutes { state.withLock { $0.audio.routes } }

    /// The system's audio route changed or was first read (the call UI adapter calls this: iOS on
    /// `AVAudioSession.routeChangeNotification`, Android on Telecom's endpoint or audio-state callbacks).
    /// ``Observation/audioRouteChanged(_:)`` follows when anything the app sees changed.
    /// - Parameters:
    ///   - current: the id of the output in use, one of `outputs`' ids; nil when the system names none.
    ///   - outputs: every output the app may choose, in the system's order.
    public func audioOutputsChanged(current: String?, outputs: [AudioOutput]) {
        carryOut(state.withLock { $0.audio.handle(.outputsChanged(current: current, outputs: outputs)) })
    }

    /// Sends the calls' audio to an output the system lists (the app's audio-route button), through the system, so
    /// its own picker agrees: applied at once while a call's audio runs, else when it starts, and again when a held
    /// call resumes, until the last call ends. ``Observation/audioRouteChanged(_:)`` follows once the system moved it.
    /// - Parameter id: an ``AudioOutput/id`` of ``audioRoutes``.
    /// - Returns: false when the system lists no such output: nothing was asked.
    @discardableResult
    public func selectAudioOutput(id: String) -> Bool {
        let (taken, effects) = state.withLock { state in
            (state.audio.maySelect(id), state.audio.handle(.select(outputID: id)))
        }
        carryOut(effects)
        return taken
    }

    /// Carries out the route machine's effects, outside the lock.
    func carryOut(_ effects: [AudioRouteEffect]) {
        for effect in effects {
            switch effect {
            case .apply(let output): ui.applyAudioOutput(output)
            case .release: ui.applyAudioOutput(nil)
            case .routeChanged(let routes): observer(.audioRouteChanged(routes))
            }
        }
    }
}
