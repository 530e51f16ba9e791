import ArgumentParser
import Foundation
import StageSimulation

/// `intent-bench simulate`: the seeded simulation of the whole pipeline on the in-memory
/// cluster (``StageSimulation/PipelineSimulation``), one JSON line per seed. The same
/// seed gives the same digest; a seed whose invariants did not hold is printed so it
/// can be run again alone.
struct SimulateBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the seeded pipeline simulation; one JSON line per seed (the last is the last seed's).",
        discussion: """
            Each line: seed, intents, digest (of every output record), held (every invariant held), failures, \
            intents_per_s (simulated intents per second of wall time), and what happened (crashes, rebalances, \
            failed_acknowledgements, snapshots, posted_transfers, dead_letters, ...). --mutation breaks the \
            pipeline on purpose (\(PipelineSimulation.Mutation.allCases.map(\.rawValue).joined(separator: ", "))): \
            the invariants must then fail.
            """)

    @Option(help: "The first seed.") var seed: UInt64 = 1
    @Option(help: "How many seeds to run, from --seed on.") var seeds: Int = 1
    @Option(help: "Intents per seed.") var intents: Int = 1000
    @Option(help: "A fault put in on purpose (repeatable); the run is expected to fail.")
    var mutation: [String] = []

    func run() throws {
        var mutations: Set<PipelineSimulation.Mutation> = []
        for name in mutation {
            guard let mutation = PipelineSimulation.Mutation(rawValue: name) else {
                throw ValidationError("unknown mutation \(name)")
            }
            mutations.insert(mutation)
        }
        var failed: [UInt64] = []
        for seed in seed..<(seed + UInt64(max(seeds, 1))) {
            let started = ContinuousClock.now
            let report = PipelineSimulation.run(seed: seed, intents: intents, mutations: mutations)
            let elapsed = started.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if !report.held { failed.append(seed) }
            print(try Self.line(report, intentsPerSecond: Double(intents) / max(seconds, 1e-9)))
        }
        if !failed.isEmpty {
            let again = mutation.map { " --mutation \($0)" }.joined()
            FileHandle.standardError.write(
                Data(
                    "invariants broken for seed(s) \(failed); rerun one with --seed S --intents \(intents)\(again)\n"
                        .utf8))
            throw ExitCode.failure
        }
    }

    /// The report as one JSON object, with the wall-clock rate beside it.
    static func line(_ report: PipelineSimulation.Report, intentsPerSecond: Double) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard var object = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? [String: Any] else {
            return "{}"
        }
        object["intents_per_s"] = Int(intentsPerSecond.rounded())
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
