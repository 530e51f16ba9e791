import ArgumentParser
import Foundation
import StageCost

/// Each stage's decision path in this process, no broker (``StageCost``): the
/// allocations per record that `make test` gates on, next to the CPU time per
/// record that no test can hold steady on a shared machine.
struct StagesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stages",
        abstract: "Allocations and CPU time per record of each stage's decision path (no broker).",
        discussion: """
            Runs --intents signed requests (every second one a payment) through resolve, confirm, payments \
            (proposals, answers, payees' credits) and handle after --warm-up others, each output encoded and \
            signed as the worker publishes it, and prints one line per stage and, last, one JSON object: \
            <stage>_allocations_per_record, <stage>_cpu_us_per_record, <stage>_records_per_cpu_s, and \
            <stage>_allocations_ceiling from benchmarks/thresholds.json for this build (release when run \
            with -c release). The ceilings hold at the defaults, the sizes the test uses; --rounds repeats \
            the whole measurement (fresh state each time) and reports each stage's lowest CPU time.
            """)

    @Option(help: "Intents measured (default 400, as the gate).") var intents = 400
    @Option(help: "Intents run first, unmeasured (default 100, as the gate).") var warmUp = 100
    @Option(help: "Measurements; the lowest CPU time of each stage is reported.") var rounds = 5

    func run() throws {
        guard AllocationCounter.isCounting else { throw ValidationError("allocation counting is compiled out") }
        let thresholds = try? StageCostThresholds.load(from: StageCostThresholds.committed)
        var best: [StagePath: StageCost] = [:]
        for _ in 0..<max(1, rounds) {
            for cost in try StageCost.measure(intents: intents, warmUp: warmUp) {
                if let seen = best[cost.stage], seen.cpuNanoseconds <= cost.cpuNanoseconds { continue }
                best[cost.stage] = cost
            }
        }
        var fields: [(String, String)] = []
        for stage in StagePath.allCases {
            guard let cost = best[stage] else { continue }
            let ceiling = thresholds?.allocationsPerRecord(for: stage)
            print(
                "\(stage.rawValue): \(cost.records) records, \(String(format: "%.2f", cost.allocationsPerRecord)) allocations",
                "(ceiling \(ceiling.map { String($0) } ?? "none")),",
                "\(String(format: "%.1f", cost.cpuMicrosecondsPerRecord)) µs CPU per record")
            fields.append(
                ("\(stage.rawValue)_allocations_per_record", String(format: "%.2f", cost.allocationsPerRecord)))
            fields.append(
                ("\(stage.rawValue)_cpu_us_per_record", String(format: "%.2f", cost.cpuMicrosecondsPerRecord)))
            fields.append(
                ("\(stage.rawValue)_records_per_cpu_s", String(Int(1e6 / max(cost.cpuMicrosecondsPerRecord, 0.001)))))
            if let ceiling { fields.append(("\(stage.rawValue)_allocations_ceiling", String(ceiling))) }
        }
        print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    }
}
