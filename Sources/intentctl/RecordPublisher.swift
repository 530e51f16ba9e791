import CommandLineSupport
import Kafka

/// Publishes records once and waits until the broker acknowledged every one:
/// what the one-shot publishing commands share.
func publish(_ records: [KafkaProducerMessage], kafka: KafkaOptions, logging: LoggingOptions) async throws {
    let producer = try KafkaProducer(
        configuration: KafkaProducerConfiguration(client: kafka.configuration()),
        logger: logging.makeLogger(label: "intentctl.publish"))
    do {
        _ = try await producer.sendAll(records)
        await producer.shutdown()
    } catch {
        await producer.shutdown()
        throw error
    }
}
