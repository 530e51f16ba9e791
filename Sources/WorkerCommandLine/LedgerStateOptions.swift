public import ArgumentParser
import CommandLineSupport
import Foundation
public import IntentWorkers

/// What the workers that hold the ledger (payments, confirm) take about their
/// state: how long decided things are remembered, and how often it is snapshotted.
public struct LedgerStateOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "How long decided transfers, requests and applied event ids are remembered (ledger time), e.g. 24h; inputs older than half of it are refused as stale. Default: $INTENT_IDEMPOTENCY_HORIZON, else 24h.",
            valueName: "duration"))
    public var idempotencyHorizon: String?

    @Option(
        help: ArgumentHelp(
            "How often each owned ledger partition's state is snapshotted (and once at shutdown), e.g. 30s. Default: $INTENT_SNAPSHOT_INTERVAL, else 30s.",
            valueName: "duration"))
    public var snapshotInterval: String?

    /// `configuration` with these settings (flags, else the environment, else its defaults).
    public func apply<Stage>(to configuration: inout StageConfiguration<Stage>) throws {
        let environment = ProcessInfo.processInfo.environment
        if let text = idempotencyHorizon ?? environment["INTENT_IDEMPOTENCY_HORIZON"] {
            guard let value = DurationText.parse(text), value >= .seconds(600) else {
                throw ValidationError(
                    "Invalid idempotency horizon \(text): use hours (24h) or minutes (90m), at least 10 minutes.")
            }
            configuration.idempotencyHorizon = value
        }
        if let text = snapshotInterval ?? environment["INTENT_SNAPSHOT_INTERVAL"] {
            guard let value = DurationText.parse(text), value >= .seconds(1) else {
                throw ValidationError(
                    "Invalid snapshot interval \(text): use seconds (30s) or minutes (5m), at least 1s.")
            }
            configuration.snapshotInterval = value
        }
    }
}
