import ArgumentParser
import Foundation
import StageSimulation

/// `intent-bench simulate`: the seeded simulation of the handle stage on the in-memory
/// cluster (``StageSimulation/MessagingSimulation``), one JSON line per seed. The same
/// seed gives the same digest; a seed whose invariants did not hold is printed so it
/// can be run again alone.
struct SimulateBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the seeded pipeline simulation; one JSON line per seed (the last is the last seed's).")

    @Option(help: "The first seed.") var seed: UInt64 = 1
    @Option(help: "How many seeds to run, from --seed on.") var seeds: Int = 1
    @Option(help: "Intents per seed.") var intents: Int = 1000

    func run() throws {
        var failed: [UInt64] = []
        for seed in seed..<(seed + UInt64(max(seeds, 1))) {
            let started = ContinuousClock.now
            let report = MessagingSimulation.run(seed: seed, intents: intents)
            let elapsed = started.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if !report.held { failed.append(seed) }
            print(try Self.line(report, intentsPerSecond: Double(intents) / max(seconds, 1e-9)))
        }
        if !failed.isEmpty {
            FileHandle.standardError.write(
                Data("invariants broken for seed(s) \(failed); rerun one with --seed S --intents \(intents)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The report as one JSON object, with the wall-clock rate beside it.
    static func line(_ report: MessagingSimulation.Report, intentsPerSecond: Double) throws -> String {
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
