import ArgumentParser
import IntentResolution

/// `--version N` of a directory record (contacts, settings): readers ignore a record
/// whose version is not higher than the one they hold for its key (``RecordVersion``).
/// Without it, the time in milliseconds: growing as long as one writer publishes a key
/// at most once a millisecond and its clock does not step back. Several writers of one
/// key must pass versions they agree on.
struct RecordVersionOption: ParsableArguments {
    @Option(
        name: .customLong("version"),
        help: ArgumentHelp(
            "The records' version, 1 or more, higher than any earlier one of the same key (default: the time in ms).",
            valueName: "N"))
    var explicit: Int64?

    func validate() throws {
        if let explicit, explicit < 1 { throw ValidationError("--version must be 1 or more.") }
    }

    /// The version to publish with, chosen once per run.
    func resolved() -> Int64 { explicit ?? RecordVersion.fromClock() }
}
