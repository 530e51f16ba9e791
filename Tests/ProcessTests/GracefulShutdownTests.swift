import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import StageRuntime
import Testing

extension ProcessLevel {
    /// SIGTERM, as Kubernetes sends it on every rollout, scale-in and node drain,
    /// to each worker process while intents (half of them payments, some
    /// declined) flow: each must exit 0 within its Deployment's
    /// `terminationGracePeriodSeconds`, and afterwards nothing is lost (every
    /// intent has its final response, the audit holds) and nothing is repeated
    /// (no event id appears twice on any topic the workers write: a graceful stop
    /// commits what it published, so its successor redoes nothing).
    @Suite("Graceful shutdown under load", .heavyTimeLimit(minutes: 20))
    struct GracefulShutdownTests {
        static let workers = ["payments", "handle", "resolve", "confirm"]

        /// `terminationGracePeriodSeconds` of the worker's Deployment.
        static func gracePeriod(of worker: String) throws -> Duration {
            let manifest = try String(
                contentsOf: try #require(ToolLocator.projectRoot()).appendingPathComponent(
                    "deploy/kubernetes/intent-\(worker).yaml"), encoding: .utf8)
            let line = try #require(
                manifest.split(separator: "\n").first { $0.contains("terminationGracePeriodSeconds:") })
            return .seconds(try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))))
        }

        @Test("every worker exits 0 within its grace period on SIGTERM under load; nothing lost, nothing repeated")
        func sigtermUnderLoad() async throws {
            try await withBroker { broker in
                var random = SplitMix64(seed: LoadFixture.seed)
                let run = try await LoadRun.start(broker, name: "sigterm", random: &random)
                defer { Task { await run.producer.shutdown() } }
                let (topics, workers, responder, intents, published) = (
                    run.topics, run.workers, run.responder, run.intents, run.published
                )
                let grace = try Dictionary(
                    uniqueKeysWithValues: Self.workers.map { ($0, try Self.gracePeriod(of: $0)) })
                let stops = Task {
                    try await workers.terminations(of: Self.workers, grace: grace.values.min()!) { published.value }
                }
                let finals = try await responder.run(until: Set(intents.keys), timeout: .seconds(600))
                try await run.load.value
                let terminations = try await stops.value
                await workers.stopAll()
                await responder.close()
                print(
                    "graceful shutdown: "
                        + terminations.map {
                            "\($0.worker) exit \($0.status.map(String.init) ?? "killed") after \($0.elapsed) at \($0.publishedAtSignal) published"
                        }
                        .joined(separator: "; "))

                #expect(terminations.map(\.worker).sorted() == Self.workers.sorted())
                for termination in terminations {
                    #expect(
                        termination.status == 0,
                        "\(termination.worker) exited \(String(describing: termination.status))")
                    // The bound is the product's promise (the Deployment's grace period, 30 s), not a
                    // guess: measured exits take 0.2-1.7 s (docs/test-suite-time.md), over 15x inside it.
                    #expect(termination.elapsed < grace[termination.worker]!, "\(termination.worker)")
                }
                // The stops must land while there is work in flight, not after it.
                #expect(terminations.filter { $0.publishedAtSignal < intents.count }.count >= 3)
                #expect(
                    finals.count == intents.count,
                    "\(intents.count - finals.count) intents without a final response seen by the voice side: \(Set(intents.keys).subtracting(finals.keys).sorted().prefix(10))"
                )
                try await LoadFixture.check(topics: topics, broker: broker, intents: intents)
                for topic in [
                    topics.resolved, topics.confirmed, topics.confirmations, topics.prompts, topics.responses,
                    topics.ledger, topics.messages,
                ] {
                    let (events, _) = try await TopicReader.events(
                        of: topic, configuration: clientConfiguration(broker), logger: testLogger)
                    let repeated = Dictionary(grouping: events, by: \.id).filter { $0.value.count > 1 }
                    #expect(
                        repeated.isEmpty,
                        "\(repeated.count) events published twice on \(topic), e.g. \(repeated.keys.first ?? "")")
                }
            }
        }
    }
}
