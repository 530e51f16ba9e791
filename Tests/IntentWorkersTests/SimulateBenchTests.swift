import BrokerTestSupport
import Foundation
import Testing

/// `intent-bench simulate` as its own process, as `make simulate` and the reader run
/// it: one JSON line per seed and a summary last, with the CPU time beside the wall time (a
/// shared machine's neighbours move the wall time of a run more than the CPU it needs, so a
/// reading of the simulation's speed needs both). Three small seeds, two at a time.
@Suite("intent-bench simulate's lines", .heavyTimeLimit(minutes: 3))
struct SimulateBenchTests {
    struct Summary: Decodable {
        var summary: Bool
        var seeds: Int
        var intents_per_seed: Int
        var held: Bool
        var wall_s: Double
        var cpu_s: Double
        var intents_per_cpu_s: Int
        var aggregate_intents_per_s: Int
    }

    @Test("the summary adds the run's CPU time and the intents per CPU-second it gives")
    func summaryHasCPUTime() async throws {
        let summary = try await BenchCommand.run(
            ["simulate", "--seed", "7", "--seeds", "3", "--intents", "40", "--parallel", "2"], as: Summary.self,
            timeout: .seconds(150))
        #expect(summary.summary && summary.seeds == 3 && summary.intents_per_seed == 40 && summary.held)
        // Two seeds at a time on two threads: at most twice the wall time, and some of it.
        #expect(summary.cpu_s > 0 && summary.cpu_s <= 2 * summary.wall_s + 0.05, "\(summary)")
        // cpu_s is printed to the millisecond, the rate computed from the unrounded time.
        let perCPUSecond = Double(3 * 40) / summary.cpu_s
        let rounding = perCPUSecond * 0.0005 / summary.cpu_s
        #expect(abs(Double(summary.intents_per_cpu_s) - perCPUSecond) <= 1 + rounding, "\(summary)")
        #expect(summary.aggregate_intents_per_s > 0)
    }
}
