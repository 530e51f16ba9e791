/// How a run of transient failures is retried: exponential backoff, capped, with
/// "equal jitter" (half fixed, half random, so members that saw the same outage do
/// not all come back in the same millisecond), until the run has lasted `giveUpAfter`.
public struct RetrySchedule: Sendable, Hashable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public var giveUpAfter: Duration

    public init(
        initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5),
        giveUpAfter: Duration = .seconds(300)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
    }
}

/// One run of failures of one operation under a ``RetrySchedule``, on an injected
/// time line: when it began, how many attempts failed, when the next one is due.
struct FailureRun<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    let first: Instant
    private(set) var attempts = 0
    private(set) var due: Instant

    init(at now: Instant) {
        first = now
        due = now
    }

    /// Records a failure at `now`; nil when the run has lasted the give-up time.
    mutating func failed(at now: Instant, _ schedule: RetrySchedule, _ random: inout SplitMix) -> Instant? {
        guard first.duration(to: now) < schedule.giveUpAfter else { return nil }
        let exponent = min(attempts, 30)
        attempts += 1
        let ceiling = min(schedule.maximumDelay, schedule.initialDelay * (1 << exponent))
        let half = ceiling / 2
        let nanoseconds = max(Int64(0), Int64(half / .nanoseconds(1)))
        due = now.advanced(by: half + .nanoseconds(Int64(random.next() % UInt64(nanoseconds + 1))))
        return due
    }
}

/// A tiny seeded generator (SplitMix64), so the runtime's jitter is random in production
/// (seeded from the system) and replayable in a simulation (seeded from its seed).
public struct SplitMix: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
