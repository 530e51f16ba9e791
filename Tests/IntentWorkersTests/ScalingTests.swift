import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import PipelineAudit
import PipelineTools
import PipelineTopics
import StageRuntime
import Testing

/// Instances added and removed under load, and killed, with every worker as
/// its own process (issue 11, point 4): partitioned state moves with its
/// partitions, and nothing is lost or done twice.
@Suite("Scaling out and in under load", .heavyTimeLimit(minutes: 20), .longHeavyTest)
struct ScalingTests {
    @Test("payments 1 → 3 → 1 and handle 1 → 2 with a kill -9 of every worker: the audit holds")
    func scaleUnderLoad() async throws {
        try await withBroker { broker in
            var random = SplitMix64(seed: CrashRecoveryTests.seed)
            print("scaling test: seed \(CrashRecoveryTests.seed)")
            let run = try await LoadRun.start(
                broker, name: "scale", random: &random, extraEnvironment: ["INTENT_SNAPSHOT_INTERVAL": "2s"])
            defer { Task { await run.producer.shutdown() } }
            let (topics, workers, responder, intents, published) = (
                run.topics, run.workers, run.responder, run.intents, run.published
            )
            // The steps, a few seconds apart while the load (about 20 s) flows.
            let steps = Task { () -> [String] in
                var done: [String] = []
                func step(_ name: String, _ action: () async throws -> Void) async throws {
                    try await Task.sleep(for: .seconds(2))  // spacing the steps through the load, not synchronization
                    // Counted as it starts: a scale-in's graceful stops take a while.
                    let at = published.value
                    try await action()
                    done.append("\(name) at \(at)")
                }
                try await step("payments → 3") { try await workers.scale("payments", to: 3) }
                try await step("handle → 2") { try await workers.scale("handle", to: 2) }
                for instance in ["resolve", "confirm", "payments#2", "handle#2"] {
                    try await step("kill -9 \(instance)") { try await workers.kill(instance) }
                }
                try await step("payments → 1") { try await workers.scale("payments", to: 1) }
                return done
            }
            let finals = try await responder.run(until: Set(intents.keys), timeout: .seconds(720))
            try await run.load.value
            let done = try await steps.value
            print("scaling test (seed \(CrashRecoveryTests.seed)): \(done)")
            #expect(workers.instances(of: "payments") == 1)
            #expect(workers.instances(of: "handle") == 2)
            #expect(done.filter { $0.hasPrefix("kill") }.count == 4)
            #expect(
                done.compactMap { Int($0.split(separator: " ").last ?? "") }.filter { $0 < intents.count }.count >= 4,
                "steps must land while the load flows: \(done)")
            #expect(finals.count == intents.count, "\(intents.count - finals.count) intents without a final response")
            // Every payee's credit recorded (none left on its way), then the audit's rules.
            // (Each audit reads the topics again; nothing else to wait on.)
            let deadline = ContinuousClock.now + .seconds(120)
            var report = try await Self.audit(topics, broker)
            while report.creditsInTransit > 0 && ContinuousClock.now < deadline {
                report = try await Self.audit(topics, broker)
            }
            #expect(report.creditsInTransit == 0, "credits still on their way after 120 s")
            await workers.stopAll()
            await responder.close()
            try await CrashRecoveryTests.check(topics: topics, broker: broker, intents: intents)
        }
    }

    static func audit(_ topics: PipelineTopics, _ broker: LocalBroker) async throws -> PipelineAudit.Report {
        try await TopicAudit.run(
            topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys)
    }
}
