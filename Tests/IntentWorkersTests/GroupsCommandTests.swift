import BrokerTestSupport
import Foundation
import Kafka
import Testing

/// `intentctl groups` as `kafka-consumer-groups` is used (issue 31, point 4): the groups
/// listed, a group's committed offsets and lag, and a reset that is a dry run until `--execute`.
@Suite("intentctl groups", .heavyTimeLimit(minutes: 3))
struct GroupsCommandTests {
    struct Report: Decodable {
        struct Row: Decodable {
            var partition: Int
            var committed: Int64?
            var end: Int64
            var lag: Int64
        }
        var group: String
        var lag: Int64
        var partitions: [Row]
    }

    struct Listing: Decodable {
        struct Group: Decodable {
            var group: String
            var state: String
        }
        var groups: [Group]
    }

    @Test(
        "describe shows committed, end and lag; reset changes nothing without --execute, and moves the offsets with it")
    func describeAndReset() async throws {
        try await withBroker { broker in
            let topic = uniqueName("groups")
            let group = uniqueName("group")
            try await createTopic(broker, topic, partitions: 1)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await producer.sendAll(
                (0..<5).map { KafkaProducerMessage(topic: topic, key: "k", value: bytes("r\($0)")) })
            await producer.shutdown()
            // The group has read two records and committed that.
            let consumer = try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(client: clientConfiguration(broker), groupID: group),
                logger: testLogger)
            try consumer.assign([KafkaPartitionOffset(topic: topic, partition: 0, offset: 0)])
            try await consumer.commit([KafkaPartitionOffset(topic: topic, partition: 0, offset: 2)])
            await consumer.close()

            func describe() async throws -> Report? {
                let (status, report, output) = try await OperatorCommandTests.runJSON(
                    broker, ["groups", "describe", group, "--topic", topic, "--json"], as: Report.self)
                #expect(status == 0, "\(output)")
                return report
            }
            // Listed, as kafka-consumer-groups --list shows it, in text and in JSON.
            let (listStatus, listing, listOutput) = try await OperatorCommandTests.runJSON(
                broker, ["groups", "list", "--json"], as: Listing.self)
            #expect(listStatus == 0, "\(listOutput)")
            #expect(listing?.groups.contains { $0.group == group && !$0.state.isEmpty } == true, "\(listOutput)")
            let listText = try await OperatorCommandTests.run(broker, ["groups", "list"])
            #expect(listText.status == 0 && listText.output.contains("\n\(group)\t"), "\(listText.output)")

            let before = try #require(try await describe())
            #expect(before.lag == 3)
            #expect(before.partitions.first?.committed == 2 && before.partitions.first?.end == 5)

            let dryRun = try await OperatorCommandTests.run(
                broker, ["groups", "reset", group, "--topic", topic, "--to-earliest"])
            #expect(dryRun.status == 0, "\(dryRun.output)")
            #expect(dryRun.output.contains("dry run"), "\(dryRun.output)")
            #expect(try await describe()?.partitions.first?.committed == 2, "a dry run moved the offsets")

            let executed = try await OperatorCommandTests.run(
                broker, ["groups", "reset", group, "--topic", topic, "--to-earliest", "--execute"])
            #expect(executed.status == 0, "\(executed.output)")
            let after = try #require(try await describe())
            #expect(after.partitions.first?.committed == 0)
            #expect(after.lag == 5)

            let ambiguous = try await OperatorCommandTests.run(
                broker, ["groups", "reset", group, "--topic", topic, "--to-earliest", "--to-latest"])
            #expect(ambiguous.status == 64, "\(ambiguous.output)")
        }
    }
}
