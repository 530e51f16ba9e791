public import ArgumentParser
import Foundation
public import IntentEvents

/// `--max-event-age` and `--max-clock-skew`: which requests are fresh enough to act on.
public struct FreshnessOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "Refuse requests dated more than this many seconds ago (replays). Default: $INTENT_MAX_EVENT_AGE, else 300.",
            valueName: "seconds"))
    public var maxEventAge: Int?

    @Option(
        help: ArgumentHelp(
            "Refuse requests dated more than this many seconds ahead. Default: $INTENT_MAX_CLOCK_SKEW, else 30.",
            valueName: "seconds"))
    public var maxClockSkew: Int?

    public func window() throws -> FreshnessWindow {
        let environment = ProcessInfo.processInfo.environment
        func seconds(_ flag: Int?, _ variable: String, _ fallback: Duration) throws -> Duration {
            guard let text = flag.map(String.init) ?? environment[variable] else { return fallback }
            guard let value = Int(text), value >= 0 else {
                throw ValidationError("\(variable): expected a whole number of seconds, got \"\(text)\"")
            }
            return .seconds(value)
        }
        return FreshnessWindow(
            past: try seconds(maxEventAge, "INTENT_MAX_EVENT_AGE", FreshnessWindow.default.past),
            future: try seconds(maxClockSkew, "INTENT_MAX_CLOCK_SKEW", FreshnessWindow.default.future))
    }
}
