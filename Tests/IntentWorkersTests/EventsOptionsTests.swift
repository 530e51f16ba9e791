import BrokerTestSupport
import Foundation
import Kafka
import Testing

/// `events read` and `events publish` with kcat's options (issue 31, point 4), against a real broker.
@Suite("events read and publish options", .heavyTimeLimit(minutes: 3))
struct EventsOptionsTests {
    @Test("--offset -N/N, --from-end and --exit-at-end; --partition that does not exist; --header")
    func readAndPublishOptions() async throws {
        try await withBroker { broker in
            let topic = uniqueName("read-options")
            try await createTopic(broker, topic, partitions: 1)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await producer.sendAll(
                (0..<5).map { KafkaProducerMessage(topic: topic, key: "k", value: bytes(#"{"n":"r\#($0)"}"#)) })
            await producer.shutdown()
            func read(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                // --idle 60: a command that waited for idleness instead of stopping at the end would time out.
                try await OperatorCommandTests.run(broker, ["events", "read", topic, "--idle", "60"] + arguments)
            }
            let last = try await read(["--offset", "-2", "--exit-at-end"])
            #expect(last.status == 0, "\(last.output)")
            #expect(
                last.output.contains("r3") && last.output.contains("r4") && !last.output.contains("r2"),
                "\(last.output)")
            let one = try await read(["--offset", "1", "--count", "1"])
            #expect(one.status == 0, "\(one.output)")
            #expect(one.output.contains("r1") && !one.output.contains("r2"), "\(one.output)")
            let nothing = try await read(["--from-end", "--exit-at-end"])
            #expect(nothing.status == 0, "\(nothing.output)")
            #expect(!nothing.output.contains("\"offset\""), "\(nothing.output)")
            let missing = try await read(["--partition", "3", "--exit-at-end"])
            #expect(missing.status == 1, "\(missing.output)")
            #expect(missing.output.contains("has no partition 3"), "\(missing.output)")

            let published = try await OperatorCommandTests.run(
                broker, ["events", "publish", "--topic", topic, "--header", "x-origin=habits"],
                stdin: OperatorCommandTests.example)
            #expect(published.status == 0, "\(published.output)")
            let withHeader = try await read(["--offset", "5", "--exit-at-end"])
            #expect(withHeader.output.contains(#""x-origin":"habits""#), "\(withHeader.output)")
            let reserved = try await OperatorCommandTests.run(
                broker, ["events", "publish", "--topic", topic, "--header", "content-type=text/plain"],
                stdin: OperatorCommandTests.example)
            #expect(reserved.status == 64, "\(reserved.output)")
        }
    }
}
