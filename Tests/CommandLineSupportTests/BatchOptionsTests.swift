import ArgumentParser
import CommandLineSupport
import IntentWorkers
import Testing
import WorkerCommandLine

@Suite("Worker batching options")
struct BatchOptionsTests {
    @Test("--max-batch and --commit-interval set the worker's batch policy; nonsense is refused")
    func batchOptions() throws {
        let options = try WorkerOptions.parse(["--max-batch", "250", "--commit-interval", "50ms"])
        let policy = try options.batchPolicy()
        #expect(policy.maximumBatch == 250)
        #expect(policy.commitInterval == .milliseconds(50))
        #expect(try WorkerOptions.parse(["--commit-interval", "2s"]).batchPolicy().commitInterval == .seconds(2))
        #expect(throws: ValidationError.self) { try WorkerOptions.parse(["--max-batch", "0"]).batchPolicy() }
        #expect(throws: ValidationError.self) { try WorkerOptions.parse(["--commit-interval", "soon"]).batchPolicy() }
    }
}
