import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Learns that a child process exited, from a thread of its own blocked in `waitpid`
/// (a blocking call, so never on the cooperative pool), and lets any number of tasks
/// await it.
final class ProcessExit: Sendable {
    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())

    /// Starts watching `pid`, a child of this process, until it exits.
    func watch(_ pid: pid_t) {
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 {
                guard errno == EINTR else {
                    // Not ours to wait for any more (reaped elsewhere): say so rather than hang.
                    return processExited(-1)
                }
            }
            processExited(Self.status(raw))
        }
    }

    /// The exit code, or the signal's number for a child a signal ended (as Foundation's
    /// `terminationStatus` says it).
    static func status(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    private func processExited(_ status: Int32) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    /// The exit status, or the signal number for a process killed by a signal; nil while running.
    var status: Int32? { state.withLock { $0.status } }

    /// Returns the exit status once the process has exited.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }
}
