internal import CRdkafka
import Foundation

/// A dedicated OS thread that serves a producer's callbacks (delivery reports,
/// errors) by blocking in `rd_kafka_poll`. librdkafka wakes it the moment an
/// event arrives, so delivery results are not delayed by a sleep interval;
/// the timeout only bounds how quickly it notices a stop request.
final class PollThread: Sendable {
    private let handle: RDKafkaHandle
    private let state = Locked(State())
    private let stopped = DispatchSemaphore(value: 0)

    private struct State {
        var running = true
        var spaceWaiters: [(threshold: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(handle: RDKafkaHandle, name: String) {
        self.handle = handle
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.start()
    }

    private func loop() {
        while state.withLock({ $0.running }) {
            // One lease per round: a close waits at most one poll timeout for
            // it, and once the producer is closing the loop ends here.
            let polled = handle.ifOpen { pointer in
                rd_kafka_poll(pointer, 100)
                return Int(rd_kafka_outq_len(pointer))
            }
            guard let queued = polled else { break }
            // Wake producers waiting for queue space whose low-water mark is
            // reached. Checking after every iteration (not only when events
            // were served) bounds how late a waiter can be woken.
            let ready = state.withLock { state in
                let ready = state.spaceWaiters.filter { queued < $0.threshold }
                state.spaceWaiters.removeAll { queued < $0.threshold }
                return ready
            }
            for waiter in ready { waiter.continuation.resume() }
        }
        let waiters = state.withLock { state in
            state.running = false
            defer { state.spaceWaiters.removeAll() }
            return state.spaceWaiters
        }
        for waiter in waiters { waiter.continuation.resume() }
        stopped.signal()
    }

    /// Suspends until fewer than `threshold` messages are queued or in flight, or the loop stopped.
    func waitUntilQueued(below threshold: Int) async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.running {
                    state.spaceWaiters.append((threshold, continuation))
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
