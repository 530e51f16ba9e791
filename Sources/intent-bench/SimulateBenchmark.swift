import ArgumentParser
import Foundation
import StageCost
import StageSimulation

/// `intent-bench simulate`: the seeded simulation of the whole pipeline on the in-memory
/// cluster (``StageSimulation/PipelineSimulation``), one JSON line per seed and, for more
/// than one seed, a summary line last. Seeds are fully independent (each has its own
/// world, clock and randomness), so they run side by side on every core: a seed's digest
/// does not depend on what runs beside it. A seed whose invariants did not hold is
/// printed so it can be run again alone.
struct SimulateBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: """
            Run the seeded pipeline simulation; one JSON line per seed, in seed order, and with more than one \
            seed a summary line last.
            """,
        discussion: """
            Each seed's line: seed, intents, digest (of every output record), held (every invariant held), \
            failures, intents_per_s (that seed's simulated intents per second of its own wall time, while the \
            other seeds ran beside it), cpu_s (the CPU time of the thread that ran it), and what happened \
            (crashes, rebalances, failed_acknowledgements, snapshots, posted_transfers, dead_letters, ...). The \
            summary line (summary: true): seeds, parallel, \
            held (every seed held), failed_seeds, wall_s, median_seed_intents_per_s and \
            aggregate_intents_per_s (all seeds' intents over the wall time of the whole run, across cores), cpu_s \
            (the CPU time the run took, every core) and intents_per_cpu_s (all seeds' intents over it: what a run \
            needs, which moves less with a shared machine's neighbours than its wall time does). \
            --mutation breaks the pipeline on purpose \
            (\(PipelineSimulation.Mutation.allCases.map(\.rawValue).joined(separator: ", "))): the invariants \
            must then fail.
            """)

    @Option(help: "The first seed.") var seed: UInt64 = 1
    @Option(help: "How many seeds to run, from --seed on.") var seeds: Int = 1
    @Option(help: "Intents per seed.") var intents: Int = 1000
    @Option(help: "Seeds run at once (default: the machine's active cores).")
    var parallel: Int = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "A fault put in on purpose (repeatable); the run is expected to fail.")
    var mutation: [String] = []

    /// One seed's run: its report, its own wall time, and the CPU time of the thread that ran
    /// it (``runSeed(_:intents:mutations:)``).
    struct SeedRun: Sendable {
        var report: PipelineSimulation.Report
        var seconds: Double
        var cpuSeconds: Double

        /// Its simulated intents per second of its own wall time.
        var intentsPerSecond: Double { SimulateBenchmark.rate(report.intents, per: seconds) }
    }

    func run() async throws {
        var mutations: Set<PipelineSimulation.Mutation> = []
        for name in mutation {
            guard let mutation = PipelineSimulation.Mutation(rawValue: name) else {
                throw ValidationError("unknown mutation \(name)")
            }
            mutations.insert(mutation)
        }
        let seeds = Array(seed..<(seed + UInt64(max(self.seeds, 1))))
        let started = ContinuousClock.now
        let cpuAtStart = ProcessCPU.seconds()
        let runs = try await Self.run(seeds, intents: intents, mutations: mutations, parallel: max(parallel, 1)) {
            print(try Self.line($0))
        }
        let failed = runs.filter { !$0.report.held }.map(\.report.seed)
        if seeds.count > 1 {
            print(
                Self.summary(
                    runs, parallel: max(parallel, 1), wallSeconds: Self.seconds(started.duration(to: .now)),
                    cpuSeconds: ProcessCPU.seconds() - cpuAtStart))
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

    /// Runs `seeds`, at most `parallel` at once (a task group over the cooperative pool,
    /// one task per seed, each a whole simulation), and hands each run to `report` in
    /// seed order as soon as it and every earlier seed are done. Returns the runs in seed order.
    static func run(
        _ seeds: [UInt64], intents: Int, mutations: Set<PipelineSimulation.Mutation>, parallel: Int,
        report: (SeedRun) throws -> Void
    ) async throws -> [SeedRun] {
        var done: [Int: SeedRun] = [:]
        var reported: [SeedRun] = []
        try await withThrowingTaskGroup(of: (Int, SeedRun).self) { group in
            var next = 0
            func start() {
                guard next < seeds.count else { return }
                let index = next
                let seed = seeds[index]
                next += 1
                group.addTask { (index, runSeed(seed, intents: intents, mutations: mutations)) }
            }
            for _ in 0..<parallel { start() }
            while let (index, run) = try await group.next() {
                done[index] = run
                while let run = done.removeValue(forKey: reported.count) {
                    try report(run)
                    reported.append(run)
                }
                start()
            }
        }
        return reported
    }

    /// One seed, timed. Synchronous on purpose: its CPU time is read from the thread that runs
    /// it (``StageCost/ThreadCPUClock``), which is its own only while nothing in between can
    /// suspend (a task resumed after an `await` may go on on another thread).
    static func runSeed(_ seed: UInt64, intents: Int, mutations: Set<PipelineSimulation.Mutation>) -> SeedRun {
        let started = ContinuousClock.now
        let cpuAtStart = ThreadCPUClock.nanoseconds
        let report = PipelineSimulation.run(seed: seed, intents: intents, mutations: mutations)
        return SeedRun(
            report: report, seconds: seconds(started.duration(to: .now)),
            cpuSeconds: Double(ThreadCPUClock.nanoseconds - cpuAtStart) / 1e9)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The report as one JSON object, with the wall-clock rate and the CPU time beside it.
    static func line(_ run: SeedRun) throws -> String {
        let report = run.report
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard var object = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? [String: Any] else {
            return "{}"
        }
        object["intents_per_s"] = Int(run.intentsPerSecond.rounded())
        object["cpu_s"] = toTheMillisecond(run.cpuSeconds)
        return json(object)
    }

    /// The whole run in one line: the median of the seeds' own rates (what one core does
    /// with the others busy too) and the aggregate (every seed's intents over the run's
    /// wall time: what the machine does).
    static func summary(_ runs: [SeedRun], parallel: Int, wallSeconds: Double, cpuSeconds: Double) -> String {
        let rates = runs.map(\.intentsPerSecond).sorted()
        let median = rates.isEmpty ? 0 : (rates[(rates.count - 1) / 2] + rates[rates.count / 2]) / 2
        let intents = runs.reduce(0) { $0 + $1.report.intents }
        let failed = runs.filter { !$0.report.held }.map(\.report.seed)
        return json([
            "summary": true, "seeds": runs.count, "first_seed": runs.first?.report.seed ?? 0,
            "intents_per_seed": runs.first?.report.intents ?? 0, "parallel": parallel, "held": failed.isEmpty,
            "failed_seeds": failed, "wall_s": toTheMillisecond(wallSeconds),
            "median_seed_intents_per_s": Int(median.rounded()),
            "aggregate_intents_per_s": wholeRate(intents, per: wallSeconds),
            "cpu_s": toTheMillisecond(cpuSeconds),
            "intents_per_cpu_s": wholeRate(intents, per: cpuSeconds),
        ])
    }

    /// Seconds as the lines print them.
    private static func toTheMillisecond(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// `intents` per second of `seconds` (an empty time counts as a nanosecond).
    static func rate(_ intents: Int, per seconds: Double) -> Double { Double(intents) / max(seconds, 1e-9) }

    /// ``rate(_:per:)`` as the lines print it: a whole number.
    private static func wholeRate(_ intents: Int, per seconds: Double) -> Int {
        Int(rate(intents, per: seconds).rounded())
    }

    private static func json(_ object: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? "{}"
    }
}
