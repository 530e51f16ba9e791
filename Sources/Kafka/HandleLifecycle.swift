import Dispatch

/// The states of a librdkafka instance's life, under one lock: open (calls
/// take leases), closing (new leases refused; the closer waits for the held
/// ones to end, then has the instance to itself), closed (destroyed).
///
/// A flag checked before a call is not enough: a close between the check and
/// the call destroys the instance under it. Here the check and the lease are
/// one step, and destroying waits for every lease, so a pointer is never used
/// after `rd_kafka_destroy`.
final class HandleLifecycle: Sendable {
    private enum Phase {
        case open
        case closing
        case closed
    }

    private struct State {
        var phase = Phase.open
        var leases = 0
        /// The closer, waiting for the last lease to end.
        var drained: DispatchSemaphore?
        /// Second closers, waiting for the first to finish.
        var closeWaiters: [DispatchSemaphore] = []
    }

    private let state = Locked(State())

    /// Takes a lease; false once closing began.
    func beginLease() -> Bool {
        state.withLock { state in
            guard state.phase == .open else { return false }
            state.leases += 1
            return true
        }
    }

    func endLease() {
        let closer = state.withLock { state -> DispatchSemaphore? in
            state.leases -= 1
            guard state.leases == 0, let closer = state.drained else { return nil }
            state.drained = nil
            return closer
        }
        closer?.signal()
    }

    /// Starts closing and blocks until no lease is held. Returns false (after
    /// waiting for that close to finish) when another caller closes or closed.
    func beginClose() -> Bool {
        enum Next {
            case proceed
            case waitForLeases(DispatchSemaphore)
            case waitForOtherCloser(DispatchSemaphore)
            case alreadyClosed
        }
        let next = state.withLock { state -> Next in
            switch state.phase {
            case .open:
                state.phase = .closing
                guard state.leases > 0 else { return .proceed }
                let closer = DispatchSemaphore(value: 0)
                state.drained = closer
                return .waitForLeases(closer)
            case .closing:
                let waiter = DispatchSemaphore(value: 0)
                state.closeWaiters.append(waiter)
                return .waitForOtherCloser(waiter)
            case .closed:
                return .alreadyClosed
            }
        }
        switch next {
        case .proceed: return true
        case .waitForLeases(let closer):
            closer.wait()
            return true
        case .waitForOtherCloser(let waiter):
            waiter.wait()
            return false
        case .alreadyClosed: return false
        }
    }

    /// The instance is destroyed: wakes anyone waiting for the close.
    func finishClose() {
        let waiters = state.withLock { state in
            state.phase = .closed
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// Whether closing began.
    var isClosing: Bool { state.withLock { $0.phase != .open } }
}
