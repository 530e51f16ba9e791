import Foundation
import Synchronization

/// Learns that a child process exited from Foundation's termination handler,
/// and lets any number of tasks await it.
///
/// Why not `Process.waitUntilExit()`: on Linux it spins a run loop on the
/// calling thread and races Foundation's own process-manager thread over the
/// process's run-loop fields; with many children starting and stopping in
/// parallel (the test suite) that is a source of rare crashes. The
/// termination handler is Foundation's one notification that needs neither.
///
/// Foundation on Linux sets `isRunning` only when `run()` returns, so a child
/// that dies at once can be reported before then; ``processExited(_:)``
/// waits for ``launched()`` before it reads the status, and reports -1 when
/// Foundation's bookkeeping cannot tell it, instead of tripping its
/// preconditions.
final class ProcessExit: Sendable {
    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())
    private let runReturned = DispatchSemaphore(value: 0)

    /// Installs the handler; call before `process.run()`.
    func watch(_ process: Process) {
        process.terminationHandler = { [self] in processExited($0) }
    }

    /// Call once `process.run()` has returned successfully.
    func launched() {
        runReturned.signal()
    }

    /// Runs on the thread Foundation starts for the termination handler.
    private func processExited(_ process: Process) {
        runReturned.wait()
        runReturned.signal()
        let status = process.isRunning ? -1 : process.terminationStatus
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
