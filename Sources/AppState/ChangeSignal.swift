import Foundation
import Synchronization

/// Wakes long polls when the store changes. A generation counter closes the
/// gap between "nothing new yet" and "start waiting": a waiter passes the
/// generation it last saw and returns at once if a change came in between.
final class ChangeSignal: Sendable {
    private struct State {
        var generation = 0
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }

    func changed() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the generation moves past `seen`, or after `timeout`.
    func wait(after seen: Int, upTo timeout: Duration) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let alreadyChanged = self.state.withLock { state in
                        guard state.generation == seen else { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if alreadyChanged { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // Timed out: release our continuation (a change may have resumed it already).
            if let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) { waiter.resume() }
        }
    }
}
