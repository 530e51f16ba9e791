import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import IntentWorkers
import Kafka
import PipelineTopics

/// Publishing and reading raw events, for voice-service teams trying the
/// pipeline by hand and for auditors reading topics.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Publish events from standard input, or print a topic's events.",
        subcommands: [Publish.self, Read.self, Sign.self, Verify.self]
    )

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish events (one JSON envelope per line on standard input), keyed by their userid.",
            discussion: """
                Each line is checked as an envelope (schemas/envelope/v1.json) before anything is sent; \
                a bad line stops the command with its line number and reason, and nothing is published. \
                With --sign, each event is signed with its source's key from the source keys \
                (--source-keys, $INTENT_SOURCE_KEYS_FILE), as the resolve worker requires of a voice \
                service; a line whose source has no key stops the command before anything is sent.
                """)
        @Option(help: "Topic to publish to.") var topic: String
        @Flag(help: "Sign each event with its source's key (intent-signature and intent-key-id headers).")
        var sign = false
        @Flag(
            help:
                "Date each event now, before signing: a sample file's requests would otherwise be refused as stale (the workers' freshness window)."
        )
        var now = false
        @OptionGroup var sourceKeys: SourceKeyOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let keys = sign ? try sourceKeys.authenticator() : nil
            var records: [KafkaProducerMessage] = []
            var lineNumber = 0
            while let line = readLine(strippingNewline: true) {
                lineNumber += 1
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                var event: EventEnvelope
                do {
                    event = try EventEnvelope.decode(Array(line.utf8))
                } catch {
                    throw ValidationError("line \(lineNumber): \(error)")
                }
                // Whole milliseconds, as an envelope's time is when read (its canonical form).
                if now {
                    event.time = Date(
                        timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
                }
                if let keys {
                    guard keys.hasKey(for: event.source) else {
                        throw ValidationError(
                            "line \(lineNumber): no key for source \(event.source) in the source keys; nothing was published"
                        )
                    }
                    records.append(KafkaProducerMessage(topic: topic, event: event, signedWith: keys))
                } else {
                    records.append(KafkaProducerMessage(topic: topic, event: event))
                }
            }
            try await publish(records, kafka: kafka, logging: logging)
            output("published \(records.count) \(sign ? "signed " : "")events to \(topic)")
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a topic's records as JSON lines, from the beginning, without joining a group.",
            discussion: """
                Each line: {"topic", "partition", "offset", "key", "headers", "event"} where event is the \
                envelope, or "value" (the raw text) for a record that is not one. Stops after --count \
                records, or when --idle seconds pass without a new one.
                """)
        @Argument(help: "Topics to read.") var topics: [String]
        @Option(help: "Stop after this many records.") var count: Int?
        @Option(help: "Stop after this many seconds without a record.") var idle = 5
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.makeLogger(label: "intentctl.events")
            let configuration = try kafka.configuration()
            let topics = self.topics
            let partitions = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { lookup in
                var partitions: [KafkaTopicPartition] = []
                for topic in topics { partitions += try await lookup.partitions(of: topic) }
                return partitions
            }
            let consumer = try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(client: configuration, groupID: "intentctl-read-\(UUID())"),
                logger: logger)
            try consumer.assign(
                partitions.map {
                    KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: KafkaConsumer.beginning)
                })
            do {
                try await printRecords(consumer)
                await consumer.close()
            } catch {
                await consumer.close()
                throw error
            }
        }

        private func printRecords(_ consumer: KafkaConsumer) async throws {
            var printed = 0
            var lastRecord = ContinuousClock.now
            while count.map({ printed < $0 }) ?? true, ContinuousClock.now - lastRecord < .seconds(idle) {
                for message in try await consumer.poll(timeout: .milliseconds(250)) {
                    output(Self.line(message))
                    printed += 1
                    lastRecord = ContinuousClock.now
                    if let count, printed >= count { break }
                }
            }
        }

        static func line(_ message: KafkaConsumerMessage) -> String {
            var object: [String: JSONValue] = [
                "topic": .string(message.topic), "partition": .integer(Int64(message.partition)),
                "offset": .integer(message.offset),
                "headers": .object(
                    Dictionary(
                        message.headers.map { ($0.key, $0.stringValue.map(JSONValue.string) ?? .null) },
                        uniquingKeysWith: { _, last in last })),
            ]
            object["key"] = message.keyString.map(JSONValue.string) ?? .null
            if let value = message.value, let event = try? EventEnvelope.decode(value) {
                object["event"] = (try? JSONDecoder().decode(JSONValue.self, from: Data(event.encoded()))) ?? .null
            } else {
                object["value"] = message.value.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null
            }
            return String(decoding: CanonicalJSON.encode(JSONValue.object(object)), as: UTF8.self)
        }
    }
}
