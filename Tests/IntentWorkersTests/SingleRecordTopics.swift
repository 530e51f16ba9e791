import BrokerTestSupport
import Kafka
import LocalBroker
import PipelineTopics

/// The pipeline's topics under a fresh prefix, one partition each, with records written
/// straight onto them: for tests that put a few hand-made records where a reader (the app
/// state, the audit) meets them, with no worker between.
enum SingleRecordTopics {
    static func create(_ broker: LocalBroker, _ name: String) async throws -> PipelineTopics {
        let topics = PipelineTopics(prefix: uniqueName(name) + ".")
        try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
            try await $0.createTopics(topics.specifications(partitions: 1))
        }
        return topics
    }

    static func send(_ records: [KafkaProducerMessage], _ broker: LocalBroker) async throws {
        let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
        _ = try await producer.sendAll(records)
        await producer.shutdown()
    }
}
