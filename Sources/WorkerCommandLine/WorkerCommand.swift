public import ArgumentParser
public import IntentWorkers

/// A stage worker's command line whose worker can be given fault hooks
/// (``IntentWorkers/StageHostHooks``): the executable runs it without any
/// (``run()``), the tests' fault host (`intent-fault-host`) with its own, so the
/// process-level crash tests run the same command line and worker as production.
public protocol WorkerCommand: AsyncParsableCommand {
    /// Builds the worker from the parsed options, with `hooks`, and runs it until it stops.
    func run(hooks: any StageHostHooks) async throws
}

extension WorkerCommand {
    public func run() async throws {
        try await run(hooks: NoStageHostHooks())
    }
}
