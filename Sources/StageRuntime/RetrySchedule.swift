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
@usableFromInline
struct FailureRun<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    @usableFromInline let first: Instant
    @usableFromInline var attempts = 0
    @usableFromInline var due: Instant

    @inlinable
    init(at now: Instant) {
        first = now
        due = now
    }

    /// Counts a failure of `ticket`'s operation at `now` in `run` (starting a run when none is
    /// going on); returns why to stop once the run has lasted the give-up time.
    @inlinable
    static func count(
        _ run: inout FailureRun?, _ ticket: StageTicket, at now: Instant, _ schedule: RetrySchedule,
        _ random: inout SplitMix64
    ) -> StageStop? {
        var current = run ?? FailureRun(at: now)
        guard current.failed(at: now, schedule, &random) != nil else {
            return .gaveUp(ticket, failingFor: current.first.duration(to: now))
        }
        run = current
        return nil
    }

    /// Records a failure at `now`; nil when the run has lasted the give-up time.
    @inlinable
    mutating func failed(at now: Instant, _ schedule: RetrySchedule, _ random: inout SplitMix64) -> Instant? {
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
