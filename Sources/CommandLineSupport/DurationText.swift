import Foundation

/// Durations as operators write them in flags and the environment (`--give-up-after 5m`,
/// `--from 2h`): one reading for every option that takes one.
public enum DurationText {
    /// `300` (seconds), `300s`, `200ms` or `5m`.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let (number, seconds): (Substring, Double) =
            if trimmed.hasSuffix("ms") {
                (trimmed.dropLast(2), 0.001)
            } else {
                switch trimmed.last {
                case "h": (trimmed.dropLast(), 3600)
                case "m": (trimmed.dropLast(), 60)
                case "s": (trimmed.dropLast(), 1)
                default: (Substring(trimmed), 1)
                }
            }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return .milliseconds(Int64((value * seconds * 1000).rounded()))
    }
}
