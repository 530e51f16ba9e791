import ArgumentParser

/// Benchmarks, each comparing against a baseline measured in the same run,
/// because shared machines are too noisy for absolute numbers.
@main
struct IntentBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intent-bench",
        abstract: "Benchmarks for intent-pipeline. Run with `swift run -c release intent-bench …`.",
        subcommands: [
            KafkaBenchmark.self, ContactsBenchmark.self, PipelineBenchmark.self, RestartBenchmark.self,
            AuditBenchmark.self, StagesBenchmark.self, SimulateBenchmark.self,
        ]
    )
}
