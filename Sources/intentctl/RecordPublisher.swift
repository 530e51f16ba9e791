import ArgumentParser
import CommandLineSupport
import IntentEvents
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

/// Publishes a user's records signed as `source`, a service of the kind `prefix` names
/// (`/contacts/`, `/settings/`): the key must be among the source keys, and each record
/// goes to the user's partition of `topic`, where the resolve member for that user reads
/// it. `records` makes them from the keys and the topic's partition count. With the
/// source's view key in the source keys too (``ViewKey``), each record is signed with both,
/// and the app state shows it (names, the page's language); without one it says so.
func publishSigned(
    to topic: String, as source: String, sourceKeys: SourceKeyOptions, kafka: KafkaOptions, logging: LoggingOptions,
    _ records: (EventAuthenticator, Int) -> [KafkaProducerMessage]
) async throws {
    let keys = try sourceKeys.authenticator()
    guard keys.hasKey(for: source) else {
        throw ValidationError("The source keys have no key for \(source), which these records are signed with.")
    }
    let logger = try logging.makeLogger(label: "intentctl.publish")
    if ViewKey.isShown(source), !keys.hasViewKey(for: source) {
        logger.warning(
            "the source keys have no view key for this source: the workers read these records, the app state does not",
            metadata: ["source": "\(source)", "add": "\(ViewKey.source(viewing: source)) KEYID HEXKEY"])
    }
    let partitions = try await KafkaOffsetLookup.partitionCount(
        of: topic, configuration: kafka.configuration(), logger: logger)
    try await publish(records(keys, partitions), kafka: kafka, logging: logging)
}

/// Refuses a `--source` that is not of the kind of service allowed to write the records.
func requireSource(_ source: String, startingWith prefix: String) throws {
    guard source.hasPrefix(prefix) else { throw ValidationError("--source must start with \(prefix), got \(source)") }
}
