import Synchronization

/// What `/health` and `/ready` answer from: the worker reports as it goes
/// (its loop turned, its state is restored, partitions came or went, the
/// brokers are up or down), and the HTTP endpoint reads. Readiness is the
/// promise a load balancer or a rollout relies on: this instance decides for
/// the users of its partitions, on restored state, over a reachable broker.
public final class WorkerHealth: Sendable {
    public struct Report: Sendable, Hashable {
        public var ok: Bool
        /// Why not (empty when ok), one short phrase each: what an operator reads in `kubectl describe`.
        public var reasons: [String]
    }

    private struct State {
        var lastTurn: ContinuousClock.Instant?
        var consuming = false
        var stateRestored = false
        var needsState = false
        var assignedPartitions = 0
        var brokerUp = true
        var stopping = false
    }

    private let state = Mutex(State())
    /// How long the loop may stand still before `/health` fails: longer than the
    /// worker rides out a broker outage on its own (it exits by then).
    public let stallLimit: Duration

    public init(stallLimit: Duration = .seconds(330)) {
        self.stallLimit = stallLimit
    }

    /// A worker that restores state before deciding says so at start; `/ready` waits for ``stateRestored()``.
    public func needsState() { state.withLock { $0.needsState = true } }
    public func stateRestored() { state.withLock { $0.stateRestored = true } }
    /// The consume loop turned (once per poll): what `/health` watches.
    public func loopTurned(at now: ContinuousClock.Instant = .now) {
        state.withLock {
            $0.lastTurn = now
            $0.consuming = true
        }
    }
    public func assigned(partitions count: Int) { state.withLock { $0.assignedPartitions = count } }
    public func broker(up: Bool) { state.withLock { $0.brokerUp = up } }
    /// Shutdown has begun: not ready any more (no new traffic is routed here), still healthy.
    public func stopping() { state.withLock { $0.stopping = true } }

    /// Alive: the loop has not stood still longer than ``stallLimit`` (before the loop starts,
    /// restoring state counts as alive: readiness, not liveness, waits for it).
    public func liveness(at now: ContinuousClock.Instant = .now) -> Report {
        let state = self.state.withLock { $0 }
        guard let lastTurn = state.lastTurn, now - lastTurn > stallLimit else { return Report(ok: true, reasons: []) }
        return Report(ok: false, reasons: ["the consume loop has not turned for \(now - lastTurn)"])
    }

    public func readiness() -> Report {
        let state = self.state.withLock { $0 }
        var reasons: [String] = []
        if state.stopping { reasons.append("shutting down") }
        if state.needsState && !state.stateRestored { reasons.append("restoring state") }
        if !state.consuming { reasons.append("not consuming yet") }
        if state.assignedPartitions == 0 { reasons.append("no partitions assigned") }
        if !state.brokerUp { reasons.append("no broker reachable") }
        return Report(ok: reasons.isEmpty, reasons: reasons)
    }
}
