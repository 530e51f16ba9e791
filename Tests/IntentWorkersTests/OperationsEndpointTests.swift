import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import OperationsEndpoint
import PipelineTestSupport
import PipelineTopics
import Synchronization
import Telemetry
import Testing

/// A worker's `/health`, `/ready` and `/metrics` against a real broker: the
/// numbers must match what the test itself sent and received.
@Suite("Operator endpoints of a running worker", .heavyTimeLimit(minutes: 5))
struct OperationsEndpointTests {
    @Test(
        "ready once consuming; /metrics counts what went in, out and to the dead-letter topic, with lag and rebalances")
    func endpointsReportTheWorker() async throws {
        try await withPipeline { pipeline in
            let metrics = OperationsMetrics()
            let health = WorkerHealth()
            let telemetry = Telemetry(health: health, metrics: metrics.factory, statisticsInterval: .milliseconds(300))
            let listening = AsyncStream.makeStream(of: Int.self)
            let server = OperationsServer(
                host: "127.0.0.1", port: 0, health: health, metrics: metrics, logger: testLogger,
                onListening: { listening.continuation.yield($0) })
            var configuration = ResolveWorker.Configuration(
                kafka: clientConfiguration(pipeline.broker), topics: pipeline.topics, groupID: pipeline.groupID,
                keys: testStageKeys, sessionTimeout: .seconds(6))
            configuration.telemetry = telemetry
            let worker = ResolveWorker(configuration: configuration, logger: testLogger)
            try await pipeline.start([server, worker])
            var ports = listening.stream.makeAsyncIterator()
            let probe = OperationsProbe(port: try #require(await ports.next()))

            #expect(try await probe.get("/health").status == 200)
            let ready = try await probe.eventually("/ready", "readiness") { status, body in
                status == 200 ? body : nil
            }
            #expect(ready.contains("\"ok\":true"))

            let input = pipeline.topics.requested
            let bad: [[UInt8]] = [Array("{not json".utf8), Array("[]".utf8)]
            for value in bad { try await pipeline.sendRaw(topic: input, key: Array("u1".utf8), value: value) }
            let intents = ["m1", "m2", "m3"]
            for intent in intents {
                try await pipeline.request(
                    intent, turn: 1, .sendMessage(SendMessageIntent(recipients: [Person(spoken: "Ann")], content: "hi"))
                )
            }
            var outputs: [EventEnvelope] = []
            for intent in intents { outputs.append(try await pipeline.output(for: intent, turn: 1)) }
            let letters = try await pipeline.deadLetters(count: bad.count)
            let reasons = Dictionary(
                grouping: letters.compactMap { (letter: KafkaConsumerMessage) -> String? in
                    letter.header(DeadLetter.reasonHeader)
                }
            ) { $0 }
            let sent = Double(bad.count + intents.count)

            let samples = try await probe.eventually("/metrics", "every record counted, lag and hop latency") {
                _, body in
                let samples = PrometheusSamples(body)
                let done =
                    samples.sum("intent_records_consumed_total", ["topic": input]) == sent
                    && samples.sum("intent_hop_latency_seconds_count", ["topic": input]) == sent
                    && samples.series("kafka_consumer_lag").count == 2
                    // librdkafka reports lag every few seconds: a report from before the last
                    // records were consumed may still be the latest one.
                    && samples.series("kafka_consumer_lag").allSatisfy { $0.value == 0 }
                return done ? samples : nil
            }
            for (reason, records) in reasons {
                #expect(
                    samples.sum("intent_records_dead_lettered_total", ["topic": input, "reason": reason])
                        == Double(records.count), "dead letters for \(reason)")
            }
            for (type, events) in Dictionary(grouping: outputs, by: \.type) {
                #expect(
                    samples.sum("intent_records_produced_total", ["type": type]) == Double(events.count),
                    "outputs of type \(type)")
            }
            #expect(samples.series("kafka_consumer_lag").allSatisfy { $0.labels["topic"] == input && $0.value == 0 })
            #expect(samples.sum("intent_rebalances_total", ["kind": "assigned"]) ?? 0 >= 1)
            #expect(samples.sum("intent_batch_processing_seconds_count") ?? 0 >= 1)
            #expect(samples.sum("kafka_broker_up") ?? 0 >= 1)
            #expect(samples.sum("intent_state_records", ["topic": pipeline.topics.contacts]) != nil)

            // Shutting down: the worker stops first, so readiness reports it while the endpoint is still up.
            try await pipeline.stopWorker()
            #expect(health.readiness().reasons.contains("shutting down"))
        }
    }
}
