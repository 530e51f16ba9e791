import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

/// A worker started before its state topics are provisioned must refuse to start and say
/// which topic is missing, as `deploy/README.md` promises, rather than run with a follower
/// that never catches up (a resolve worker without the settings topic used to start, and
/// its requests waited on state that could never arrive).
@Suite("A worker whose state topic is missing refuses to start", .heavyTimeLimit(minutes: 4))
struct MissingStateTopicTests {
    /// Every topic each worker follows as state (besides its input), and outputs once left
    /// unchecked, by the worker's name.
    static var followed: [(worker: String, topic: KeyPath<PipelineTopics, String>)] {
        [
            ("resolve", \.contacts), ("resolve", \.settings),
            ("confirm", \.ledger), ("confirm", \.accounts), ("confirm", \.ledgerSnapshots),
            ("payments", \.ledger), ("payments", \.accounts), ("payments", \.ledgerSnapshots),
            ("payments", \.settings), ("handle", \.messages),
            // Outputs the hand-written start-up lists left out, now that each worker checks the
            // topics of its Kafka access (KafkaAccess): resolve's refusals on the responses
            // topic, confirm's confirmation requests on the prompts topic.
            ("resolve", \.responses), ("confirm", \.prompts),
        ]
    }

    @Test("each worker, each followed topic: exits non-zero naming the topic")
    func refusesToStart() async throws {
        try await withBroker { broker in
            let directory = testFileURL(uniqueName("missing"))
            for (worker, path) in Self.followed {
                let topics = PipelineTopics(prefix: uniqueName("missing") + ".")
                let missing = topics[keyPath: path]
                try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                    try await $0.createTopics(topics.specifications(partitions: 1).filter { $0.name != missing })
                }
                let launcher = try WorkerLauncher(
                    binaries: WorkerLauncher.binaries(), directory: directory,
                    bootstrapServers: broker.bootstrapServers, topicPrefix: topics.prefix,
                    keys: .loadFixture,
                    groupSuffix: String(UUID().uuidString.prefix(8)))
                let log = directory.appendingPathComponent("\(worker)-\(missing).log")
                let process = try launcher.launch(worker, logFile: log)
                // A bound, not a pace: the check runs before the worker joins its group, in about a
                // second; a worker that does not check runs until it is stopped.
                let status = await process.waitForExit(within: .seconds(60))
                if status == nil { await process.stop() }
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                #expect(status != nil && status != 0, "\(worker) started without \(missing): \(process.logTail())")
                #expect(
                    text.contains("Missing topics") && text.contains(missing),
                    "\(worker) did not name \(missing): \(process.logTail())")
            }
        }
    }
}
