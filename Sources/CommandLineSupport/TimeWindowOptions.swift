public import ArgumentParser
public import Foundation
import IntentEvents

/// `--from` and `--to`: the period an audit or a replay covers. A time is
/// RFC 3339 (`2026-11-25T08:00:00Z`) or a duration ago (`90m`, `2h`, `300s`).
public struct TimeWindowOptions: ParsableArguments {
    public init() {}

    @Option(help: ArgumentHelp("Start of the period: RFC 3339, or a duration ago (2h, 90m).", valueName: "TIME"))
    public var from: String?

    @Option(help: ArgumentHelp("End of the period (default: now): RFC 3339, or a duration ago.", valueName: "TIME"))
    public var to: String?

    /// A period that cannot be one is a usage error, found before the command runs.
    public func validate() throws { _ = try window() }

    /// The period, nil when no `--from` is given; `now` anchors relative times.
    public func window(now: Date = Date()) throws -> (from: Date, to: Date?)? {
        if from == nil, to != nil { throw ValidationError("--to needs --from: the period starts somewhere.") }
        guard let from else { return nil }
        let start = try Self.time(from, option: "--from", now: now)
        let end = try to.map { try Self.time($0, option: "--to", now: now) }
        if let end, end <= start { throw ValidationError("--to (\(to ?? "")) must be after --from (\(from)).") }
        return (start, end)
    }

    static func time(_ text: String, option: String, now: Date) throws -> Date {
        if let date = EventTime.parse(text) { return date }
        if let ago = DurationText.parse(text) {
            return now.addingTimeInterval(-Double(ago.components.seconds) - Double(ago.components.attoseconds) / 1e18)
        }
        throw ValidationError(
            "\(option) \(text): expected an RFC 3339 time (2026-11-25T08:00:00Z) or a duration ago (2h, 90m, 300s).")
    }
}
