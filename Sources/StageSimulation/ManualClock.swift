/// Time that moves only when a test or the simulation moves it: what a
/// ``StageRuntime/StageRuntime`` is driven with outside a real worker, so
/// cadences and backoffs are exact and a run replays.
public struct ManualClock: Sendable {
    /// An instant on a manual clock: the time since it started.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        public var sinceStart: Duration

        public init(sinceStart: Duration) { self.sinceStart = sinceStart }

        public func advanced(by duration: Duration) -> Instant { Instant(sinceStart: sinceStart + duration) }
        public func duration(to other: Instant) -> Duration { other.sinceStart - sinceStart }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.sinceStart < rhs.sinceStart }
        public var description: String { "t+\(sinceStart)" }
    }

    public private(set) var now = Instant(sinceStart: .zero)

    public init() {}

    public mutating func advance(by duration: Duration) { now = now.advanced(by: duration) }

    /// Moves to `instant` unless the clock is already past it.
    public mutating func advance(to instant: Instant) { now = max(now, instant) }
}
