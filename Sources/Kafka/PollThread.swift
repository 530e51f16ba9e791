internal import CRdkafka
import Foundation
import Synchronization

/// A dedicated OS thread that serves a producer's callbacks (delivery reports,
/// errors) by blocking in `rd_kafka_poll`. librdkafka wakes it the moment an
/// event arrives, so delivery results are not delayed by a sleep interval;
/// the timeout only bounds how quickly it notices a stop request.
final class PollThread: Sendable {
    private let handle: RDKafkaHandle
    private let state = Mutex(State())
    private let stopped = DispatchSemaphore(value: 0)

    private struct State {
        var running = true
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []
    }

    init(handle: RDKafkaHandle, name: String) {
        self.handle = handle
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.start()
    }

    private func loop() {
        while state.withLock({ $0.running }) {
            let served = rd_kafka_poll(handle.pointer, 100)
            // Wake producers that found the local queue full. Waking on every
            // iteration (not only when something was served) means a waiter that
            // raced with the last delivery report still wakes within the timeout.
            let waiters = state.withLock { state in
                defer { state.spaceWaiters.removeAll() }
                return state.spaceWaiters
            }
            _ = served
            for waiter in waiters { waiter.resume() }
        }
        let waiters = state.withLock { state in
            defer { state.spaceWaiters.removeAll() }
            return state.spaceWaiters
        }
        for waiter in waiters { waiter.resume() }
        stopped.signal()
    }

    /// Suspends until the poll loop has served more events (freeing queue space) or stopped.
    func waitForProgress() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.running {
                    state.spaceWaiters.append(continuation)
                    return false
                }
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Stops the loop and waits for the thread to leave librdkafka. Blocking.
    func stopAndWait() {
        let wasRunning = state.withLock { state in
            defer { state.running = false }
            return state.running
        }
        if wasRunning { stopped.wait() }
    }
}
