import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
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
        @Option(
            name: .customLong("header"),
            help: ArgumentHelp("A header for every record, e.g. traceparent=00-…. Repeatable.", valueName: "key=value"))
        var headers: [String] = []
        @Flag(
            help:
                "Date each event now, before signing: a sample file's requests would otherwise be refused as stale (the workers' freshness window)."
        )
        var now = false
        @OptionGroup var sourceKeys: SourceKeyOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws { _ = try extraHeaders() }

        /// The --header options as record headers; the pipeline's own (content type, signature) are not theirs to set.
        func extraHeaders() throws -> [KafkaHeader] {
            try headers.map { header in
                let parts = header.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw ValidationError("--header \(header): use key=value")
                }
                let key = String(parts[0])
                guard !["content-type", EventSignature.header, EventSignature.keyIDHeader].contains(key.lowercased())
                else {
                    throw ValidationError("--header \(key) is set by the command itself (use --sign to sign)")
                }
                return KafkaHeader(key: key, value: Array(parts[1].utf8))
            }
        }

        func run() async throws {
            let keys = sign ? try sourceKeys.authenticator() : nil
            let extra = try extraHeaders()
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
                records[records.count - 1].headers += extra
            }
            try await publish(records, kafka: kafka, logging: logging)
            output("published \(records.count) \(sign ? "signed " : "")events to \(topic)")
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a topic's records as JSON lines, without joining a group.",
            discussion: """
                Each line: {"topic", "partition", "offset", "key", "headers", "event"} where event is the \
                envelope, or "value" (the raw text) for a record that is not one. Reads every partition \
                (or --partition N) from --offset (beginning, end, N, or -N for the last N of each \
                partition; default beginning). Stops after --count records; with --exit-at-end once every \
                partition is read to where it ended when the command started (kcat -e); with --follow \
                never (kcat's default); otherwise when --idle seconds pass without a new record. Ctrl-C \
                (SIGINT) or SIGTERM ends any read the same way: the records printed so far are complete, \
                and it exits 0.
                """)
        @Argument(help: "Topics to read.") var topics: [String]
        @Option(help: "Only this partition of each topic.") var partition: Int32?
        // Unconditional: the value may start with a dash (-N), as kcat's -o takes it.
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Where to start: beginning, end, N, or -N (the last N).", valueName: "offset"))
        var offset = "beginning"
        @Flag(help: "Start at the end: only records published from now on (--offset end).") var fromEnd = false
        @Flag(help: "Stop once every partition is read to where it ended at the start.") var exitAtEnd = false
        @Flag(help: "Keep reading until interrupted (no --idle stop).") var follow = false
        @Option(help: "Stop after this many records.") var count: Int?
        @Option(help: "Stop after this many seconds without a record.") var idle = 5
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard let start = ReadStart(offset) else {
                throw ValidationError(
                    "--offset \(offset): use beginning, end, a record's offset N, or -N for the last N")
            }
            if fromEnd, offset != "beginning", start != .end {
                throw ValidationError("--from-end and --offset \(offset) say different things; give one")
            }
            if exitAtEnd && follow { throw ValidationError("--exit-at-end and --follow: give one") }
            if let partition, partition < 0 { throw ValidationError("--partition must be 0 or more") }
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
            guard idle >= 1 else { throw ValidationError("--idle must be at least 1 second") }
        }

        func run() async throws {
            ReadInterruption.install()
            let logger = try logging.makeLogger(label: "intentctl.events")
            let configuration = try kafka.configuration()
            let topics = self.topics
            let wanted = partition
            let (partitions, watermarks) = try await KafkaOffsetLookup.with(
                configuration: configuration, logger: logger
            ) { lookup in
                var partitions: [KafkaTopicPartition] = []
                for topic in topics {
                    let all = try await lookup.partitions(of: topic)
                    guard let wanted else {
                        partitions += all
                        continue
                    }
                    guard let one = all.first(where: { $0.partition == wanted }) else {
                        throw CommandFailure("\(topic) has no partition \(wanted) (it has \(all.count))")
                    }
                    partitions.append(one)
                }
                return (partitions, try await lookup.watermarks(partitions))
            }
            let start = fromEnd ? ReadStart.end : ReadStart(offset) ?? .beginning
            let starts = partitions.map { partition in
                let bounds = watermarks[partition]
                return KafkaPartitionOffset(
                    topic: partition.topic, partition: partition.partition,
                    offset: bounds.map { start.offset(low: $0.low, high: $0.high) } ?? KafkaConsumer.beginning)
            }
            // --exit-at-end: the partitions that still hold records before their end at the start.
            var unread: [KafkaTopicPartition: Int64] = [:]
            for start in starts {
                if let high = watermarks[start.topicPartition]?.high, start.offset < high {
                    unread[start.topicPartition] = high
                }
            }
            let consumer = try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(client: configuration, groupID: "intentctl-read-\(UUID())"),
                logger: logger)
            try consumer.assign(starts)
            do {
                try await printRecords(consumer, unread: exitAtEnd ? unread : nil)
                await consumer.close()
            } catch {
                await consumer.close()
                throw error
            }
        }

        /// - Parameter unread: With --exit-at-end, each partition's end at the start, until read to it.
        private func printRecords(_ consumer: KafkaConsumer, unread: [KafkaTopicPartition: Int64]?) async throws {
            var printed = 0
            var lastRecord = ContinuousClock.now
            var unread = unread
            func more() -> Bool {
                if ReadInterruption.requested { return false }
                if let count, printed >= count { return false }
                if let unread { return !unread.isEmpty }
                return follow || ContinuousClock.now - lastRecord < .seconds(idle)
            }
            while more() {
                for message in try await consumer.poll(timeout: .milliseconds(250)) {
                    output(Self.line(message))
                    printed += 1
                    lastRecord = ContinuousClock.now
                    if let end = unread?[message.topicPartition], message.offset + 1 >= end {
                        unread?[message.topicPartition] = nil
                    }
                    if !more() { break }
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
