import Foundation
import RingerSync

/// The tests' lock box is RingerSync's.
typealias Locked = LockedValue

func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
