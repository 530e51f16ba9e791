import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

extension ProcessLevel {
    /// The manifests start: each worker runs exactly as its Deployment says
    /// (command, environment from the ConfigMaps, the Secrets deploy/README.md
    /// creates written as the files the kubelet mounts, uid 10001 with fsGroup),
    /// against the local broker, and answers the kubelet's probes and Prometheus'
    /// scrape, then stops with exit 0 on SIGTERM within its grace period
    /// (scripts/manifest_smoke.py does the kubelet's part).
    @Suite("Manifests start", .heavyTimeLimit(minutes: 10))
    struct ManifestSmokeTests {
        struct WorkerResult: Decodable {
            var worker: String
            var uid: Int
            var ran_as_deployment_user: Bool
            var ready_status: Int?
            var live_status: Int?
            var metrics_status: Int?
            var metric_names: [String]
            var exit_status: Int?
            var mounted: [String]
        }

        /// What an operator's dashboard needs from every worker right after it starts: the
        /// pipeline's own counters and librdkafka's statistics (lag, broker state).
        static let expectedMetrics = [
            "intent_records_consumed_total", "intent_rebalances_total", "intent_state_records", "kafka_consumer_lag",
            "kafka_broker_up",
        ]
        static let stageWorkers = ["intent-resolve", "intent-confirm", "intent-payments", "intent-handle"]
        /// The app state is no stage: it has no state topics to follow, and counts no rebalances.
        static let appStateMetrics = ["intent_records_consumed_total", "kafka_consumer_lag", "kafka_broker_up"]

        /// `--expect-metric WORKER:NAME` for each worker's own list.
        static var metricArguments: [String] {
            stageWorkers.flatMap { worker in expectedMetrics.flatMap { ["--expect-metric", "\(worker):\($0)"] } }
                + appStateMetrics.flatMap { ["--expect-metric", "intent-appstate:\($0)"] }
        }

        @Test("every worker runs as its Deployment says, turns ready, serves metrics, and exits 0 on SIGTERM")
        func workersStartAsDeployed() async throws {
            try await withBroker { broker in
                let prefix = uniqueName("smoke") + "."
                let topics = PipelineTopics(prefix: prefix)
                try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                    try await $0.createTopics(topics.specifications(partitions: 2))
                }
                let output = testFileURL(
                    "smoke-\(UUID().uuidString).log")
                defer { ManagedProcess.removeOutput(of: output) }
                let (status, text) = try await runProcess(
                    name: "manifest_smoke.py", executable: try ToolLocator.python(),
                    arguments: [
                        try #require(ToolLocator.projectRoot()).appendingPathComponent("scripts/manifest_smoke.py")
                            .path,
                        "--bootstrap", broker.bootstrapServers, "--topic-prefix", prefix,
                        "--bin-dir", WorkerProcesses.binaries.path, "--session-timeout-ms",
                        GroupSession.milliseconds(GroupSession.current.timeout),
                    ] + Self.metricArguments,
                    outputFile: output, timeout: .seconds(480))
                #expect(status == 0, "\(text)")
                let results = try text.split(separator: "\n").filter { $0.hasPrefix("{\"worker\"") }
                    .map { try JSONDecoder().decode(WorkerResult.self, from: Data($0.utf8)) }
                #expect(
                    results.map(\.worker) == Self.stageWorkers + ["intent-appstate"], "\(text)")
                let asRoot = getuid() == 0
                for result in results {
                    #expect(result.ready_status == 200, "\(result.worker): \(text)")
                    #expect(result.live_status == 200, "\(result.worker)")
                    #expect(result.metrics_status == 200, "\(result.worker)")
                    #expect(result.exit_status == 0, "\(result.worker): \(text)")
                    // The manifests' uid, where this test may switch to it (CI runs as root).
                    if asRoot {
                        #expect(result.ran_as_deployment_user && result.uid == 10001, "\(result.worker)")
                    }
                    if result.worker == "intent-appstate" {
                        // View keys alone (the contacts service's among them, for names): no key a worker trusts.
                        #expect(result.mounted.contains("/etc/view-keys"), "\(result.mounted)")
                        #expect(!result.mounted.contains("/etc/stage-keys"), "\(result.mounted)")
                    } else {
                        #expect(result.mounted.contains("/etc/stage-keys"), "\(result.worker): \(result.mounted)")
                    }
                    for metric in result.worker == "intent-appstate" ? Self.appStateMetrics : Self.expectedMetrics {
                        #expect(
                            result.metric_names.contains(metric),
                            "\(result.worker) lacks \(metric): \(result.metric_names)"
                        )
                    }
                }
            }
        }
    }
}
