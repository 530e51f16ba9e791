import Foundation
import IntentEvents
public import IntentResolution
public import Kafka
public import Logging
public import ServiceLifecycle

/// The resolve stage as a worker: consumes intent requests, resolves them
/// against the user's materialized contacts, and publishes a prompt or a
/// resolved intent. At-least-once with deterministic event ids: a batch's
/// output is acknowledged by the broker before the batch's offsets are
/// committed, so a crash repeats work (with the same event ids) but never
/// loses it. Bad records are parked on the dead-letter topic and committed past.
public final class ResolveWorker: Service, Sendable {
    public struct Configuration: Sendable {
        public var kafka: KafkaConfiguration
        public var topics: PipelineTopics
        public var groupID: String
        public var resolver: IntentResolver
        public var sessionTimeout: Duration

        public init(
            kafka: KafkaConfiguration, topics: PipelineTopics = PipelineTopics(), groupID: String = "intent-resolve",
            resolver: IntentResolver = IntentResolver(), sessionTimeout: Duration = .seconds(10)
        ) {
            self.kafka = kafka
            self.topics = topics
            self.groupID = groupID
            self.resolver = resolver
            self.sessionTimeout = sessionTimeout
        }
    }

    public let configuration: Configuration
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: configuration.kafka), logger: logger)
        let topics = configuration.topics
        let groupID = configuration.groupID
        let contacts: ContactsFollower
        do {
            contacts = try ContactsFollower(
                configuration: configuration.kafka, topic: topics.contacts, logger: logger
            ) { message, error in
                _ = try await producer.send(
                    DeadLetter.record(for: message, error: error, worker: groupID, topic: topics.deadLetter))
            }
        } catch {
            await producer.shutdown()
            throw error
        }
        do {
            try await contacts.catchUp()
            let consumer = try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(
                    client: configuration.kafka, groupID: groupID, sessionTimeout: configuration.sessionTimeout),
                logger: logger)
            do {
                try consumer.subscribe(topics: [topics.requested])
                logger.info("resolving", metadata: ["topic": "\(topics.requested)", "group": "\(groupID)"])
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { try await contacts.follow() }
                    try await self.resolveRequests(consumer, producer, contacts)
                    group.cancelAll()
                }
                await consumer.close()
            } catch {
                await consumer.close()
                throw error
            }
        } catch {
            await contacts.close()
            await producer.shutdown()
            throw error
        }
        await contacts.close()
        await producer.shutdown()
        logger.info("resolve worker stopped")
    }

    /// Until graceful shutdown: each batch is processed, its output
    /// acknowledged, then its offsets committed. The batch in flight when
    /// SIGTERM arrives is finished, not abandoned.
    private func resolveRequests(
        _ consumer: KafkaConsumer, _ producer: KafkaProducer, _ contacts: ContactsFollower
    ) async throws {
        try await withGracefulShutdownHandler {
            try await resolveUntilShutdown(consumer, producer, contacts)
        } onGracefulShutdown: { [logger] in
            logger.info("shutdown requested: finishing the batch in flight, then committing")
        }
    }

    private func resolveUntilShutdown(
        _ consumer: KafkaConsumer, _ producer: KafkaProducer, _ contacts: ContactsFollower
    ) async throws {
        var stage = ResolveStage(resolver: configuration.resolver)
        let topics = configuration.topics
        for try await batch in consumer.batches() {
            var outgoing: [KafkaProducerMessage] = []
            for message in batch {
                let output = stage.process(key: message.keyString, value: message.value) { contacts.book(for: $0) }
                var metadata: Logger.Metadata = ["record": "\(message.topicPartition)@\(message.offset)"]
                switch output {
                case .prompt(let event):
                    outgoing.append(KafkaProducerMessage(topic: topics.prompts, event: event))
                    metadata["intent"] = "\(event.intentID ?? "")"
                    logger.debug("prompt", metadata: metadata)
                case .resolved(let event):
                    outgoing.append(KafkaProducerMessage(topic: topics.resolved, event: event))
                    metadata["intent"] = "\(event.intentID ?? "")"
                    logger.debug("resolved", metadata: metadata)
                case .ignored(let reason):
                    metadata["reason"] = "\(reason)"
                    logger.info("turn ignored", metadata: metadata)
                case .rejected(let error):
                    outgoing.append(
                        DeadLetter.record(
                            for: message, error: error, worker: configuration.groupID, topic: topics.deadLetter))
                    metadata["reason"] = "\(error.reason.rawValue)"
                    metadata["error"] = "\(error)"
                    logger.warning("dead-lettered", metadata: metadata)
                }
            }
            _ = try await producer.sendAll(outgoing)
            try consumer.markProcessed(batch)
            if try await !consumer.commit() {
                logger.notice("commit refused during a rebalance; the next commit or revoke covers it")
            }
        }
    }
}
