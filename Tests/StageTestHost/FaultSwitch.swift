import Foundation
import Synchronization

/// A fault-injection switch for the process-level tests, read once from an environment
/// variable (a whole number N) by the fault host (`intent-fault-host`, never a production
/// executable): counts the times its point is reached and says which time this is.
final class FaultSwitch: Sendable {
    private let target: Int?
    private let reached = Atomic<Int>(0)

    init(_ variable: String, environment: [String: String]) {
        target = environment[variable].flatMap(Int.init)
    }

    /// Whether the variable was set.
    var isOn: Bool { target != nil }

    /// The configured N and how many times the point was reached, this time included;
    /// nil when the switch is off.
    func reach() -> (target: Int, count: Int)? {
        guard let target else { return nil }
        return (target, reached.add(1, ordering: .relaxed).newValue)
    }
}
