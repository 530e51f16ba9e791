public import Foundation

/// The committed ceilings (`benchmarks/thresholds.json`): per build configuration and
/// stage, the most heap allocations per input record the stage's decision path may make
/// in ``StageCost/measure(intents:warmUp:users:)``. Lowered when a change removes
/// allocations, so the next change that adds them back fails `make test` (a debug build)
/// at the commit that makes it; `intent-bench stages` checks the release ceilings.
public struct StageCostThresholds: Sendable, Codable, Hashable {
    /// Why the numbers are what they are; not read by the gate.
    public var note: String?
    /// By configuration (`debug`, `release`), then by stage (``StagePath`` raw value).
    public var allocationsPerRecord: [String: [String: Double]]

    public static func load(from url: URL) throws -> StageCostThresholds {
        try JSONDecoder().decode(StageCostThresholds.self, from: Data(contentsOf: url))
    }

    /// The configuration this code was compiled in, as the file names it.
    public static var configuration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    /// The ceiling for `stage` in this build's configuration; nil if the file has none.
    public func allocationsPerRecord(for stage: StagePath, configuration: String = configuration) -> Double? {
        allocationsPerRecord[configuration]?[stage.rawValue]
    }

    /// The file in a checkout: `benchmarks/thresholds.json` at the package's root.
    public static var committed: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("benchmarks/thresholds.json")
    }
}
