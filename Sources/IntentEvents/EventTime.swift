public import Foundation

/// RFC 3339 timestamps as events carry them: UTC, exactly three fraction
/// digits on output, with or without fractional seconds on input.
///
/// Output rounds to the nearest millisecond by integer arithmetic, so
/// formatting a parsed time gives back the same text. That makes an event's
/// canonical form (what signatures and bindings cover) survive a round trip;
/// Foundation's own fractional formatting truncates a double such as
/// 0.12399999 to ".123".
public enum EventTime {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    public static func format(_ date: Date) -> String {
        format(milliseconds: milliseconds(date))
    }

    public static func format(milliseconds: Int64) -> String {
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (wholeSeconds, fraction) = remainder < 0 ? (seconds - 1, remainder + 1000) : (seconds, remainder)
        let text = withoutFraction.format(Date(timeIntervalSince1970: Double(wholeSeconds)))
        let digits = String(fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Milliseconds since 1970, rounded to the nearest.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Parses, then rounds to whole milliseconds: a time with more fraction
    /// digits ("…:00.0002Z") is the time its canonical form says, so what a
    /// signature covers and what the consumer acts on are the same instant
    /// (found by fuzzing: such an envelope did not survive its own canonical form).
    public static func parse(_ text: String) -> Date? {
        guard let date = (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text)) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000)
    }
}
