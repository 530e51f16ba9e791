public import Foundation

/// RFC 3339 timestamps as events carry them: UTC, milliseconds on output,
/// with or without fractional seconds on input.
public enum EventTime {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    public static func format(_ date: Date) -> String {
        withFraction.format(date)
    }

    public static func parse(_ text: String) -> Date? {
        (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text))
    }
}
