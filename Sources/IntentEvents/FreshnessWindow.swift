public import Foundation

/// How old, or how far ahead, an event from outside may be dated and still
/// be acted on. A signature proves who wrote an event, not when it was sent:
/// a captured request replayed a day later, or one dated ahead to outlive
/// its key, is refused (`stale`) however well it is signed. The audit's
/// replay reads topics without this check, so history stays readable.
public struct FreshnessWindow: Sendable, Hashable {
    /// Voice services publish within seconds; five minutes allows for queues and retries.
    public static let `default` = FreshnessWindow(past: .seconds(300), future: .seconds(30))

    /// How far in the past an event's `time` may be.
    public var past: Duration
    /// How far in the future (clock skew between the voice service and us).
    public var future: Duration

    public init(past: Duration, future: Duration) {
        self.past = past
        self.future = future
    }

    public func check(_ event: EventEnvelope, now: Date) throws(EventDecodingError) {
        let age = now.timeIntervalSince(event.time)
        if age > Self.seconds(past) {
            throw EventDecodingError(
                .stale, field: "$.time",
                "dated \(Int(age)) s ago; events older than \(Int(Self.seconds(past))) s are refused")
        }
        if -age > Self.seconds(future) {
            throw EventDecodingError(
                .stale, field: "$.time",
                "dated \(Int(-age)) s ahead; events more than \(Int(Self.seconds(future))) s ahead are refused")
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
