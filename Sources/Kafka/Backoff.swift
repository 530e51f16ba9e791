/// Delays between retries of a failing call: exponential, capped, with
/// jitter.
///
/// Exponential so that a long outage is polled rarely; capped so that a
/// client notices within seconds once the cluster is back; jittered ("equal
/// jitter": half the delay fixed, half random) so that every worker that saw
/// the same broker go away does not come back in the same millisecond.
public struct Backoff: Sendable, Hashable {
    public var initial: Duration
    public var maximum: Duration
    /// Delays handed out since the last ``reset()``.
    public private(set) var attempts = 0

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before the next attempt: `initial * 2^attempts`, at most `maximum`, with half of it random.
    public mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }

    public mutating func next(using generator: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(attempts, 30)
        attempts += 1
        let ceiling = min(maximum, initial * (1 << exponent))
        let half = ceiling / 2
        let nanoseconds = max(Int64(0), Int64(half / .nanoseconds(1)))
        return half + .nanoseconds(Int64.random(in: 0...nanoseconds, using: &generator))
    }

    /// Back to the initial delay, after a success.
    public mutating func reset() { attempts = 0 }
}
