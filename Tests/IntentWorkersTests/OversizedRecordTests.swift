import BrokerTestSupport
import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

/// Records too large to copy to the dead-letter topic are parked as
/// references, and never stop a worker (issue 16, acceptance 3).
@Suite("Oversized records", .heavyTimeLimit(minutes: 5))
struct OversizedRecordTests {
    /// Bytes that are not UTF-8 nor JSON, different at every position, so a
    /// wrong prefix or hash shows.
    static func hostileBytes(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    static func consumed(
        value: [UInt8]?, key: [UInt8]? = Array("u1".utf8), headers: [KafkaHeader] = []
    ) -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topic: "t.intents.requested", partition: 1, offset: 42, key: key, value: value, headers: headers,
            timestamp: nil)
    }

    @Test("a reference carries where the original is, its size, its SHA-256 and its first KiB, never its bulk")
    func referenceFormat() throws {
        let value = Self.hostileBytes(3000, seed: 7)
        let headers = (0..<100).map { KafkaHeader(key: "h\($0)", string: String(repeating: "v", count: 100)) }
        let error = EventDecodingError(
            .schemaInvalid, field: "$.data." + String(repeating: "f", count: 5000), "unknown field")
        let reference = DeadLetter.reference(
            for: Self.consumed(value: value, headers: headers), error: error, worker: "resolve",
            topic: "t.intents.deadletter")
        let header = { (key: String) in reference.headers.first { $0.key == key }?.stringValue }
        #expect(reference.topic == "t.intents.deadletter")
        #expect(reference.key == Array("u1".utf8))
        #expect(reference.value == Array(value.prefix(1024)))
        #expect(header(DeadLetter.reasonHeader) == "schema_invalid")
        #expect(header(DeadLetter.topicHeader) == "t.intents.requested")
        #expect(header(DeadLetter.partitionHeader) == "1")
        #expect(header(DeadLetter.offsetHeader) == "42")
        #expect(header(DeadLetter.workerHeader) == "resolve")
        #expect(header(DeadLetter.originalSizeHeader) == "3000")
        #expect(header(DeadLetter.originalSHA256Header) == Digest.hex(Digest.sha256(value)))
        #expect(header(DeadLetter.truncatedHeader) == "true")
        #expect(header(DeadLetter.refusalHeader) == nil)
        // The original headers are not copied; a quoted field path is cut to the prefix size.
        #expect(!reference.headers.contains { $0.key.hasPrefix("h") })
        #expect(header(DeadLetter.fieldHeader)?.utf8.count == DeadLetter.referencePrefixBytes)
        #expect(reference.headers.count <= 12)

        // A long key is not kept; a missing value stays missing.
        let longKey = DeadLetter.reference(
            for: Self.consumed(value: nil, key: Self.hostileBytes(2000, seed: 1)), error: error, worker: "w",
            topic: "dlq",
            refusal: KafkaError(code: .messageSizeTooLarge, name: "MSG_SIZE_TOO_LARGE", message: "", operation: ""))
        #expect(longKey.key == nil)
        #expect(longKey.value == nil)
        #expect(longKey.headers.first { $0.key == DeadLetter.originalSizeHeader }?.stringValue == "0")
        #expect(longKey.headers.first { $0.key == DeadLetter.refusalHeader }?.stringValue == "MSG_SIZE_TOO_LARGE")
    }

    @Test("a dead letter is a full copy up to the limit and a reference above it")
    func copyOrReference() {
        let error = EventDecodingError(.oversized, "too big")
        let small = Self.consumed(value: Self.hostileBytes(10_000, seed: 3))
        let copy = DeadLetter.record(for: small, error: error, worker: "w", topic: "dlq", maximumBytes: 20_000)
        #expect(copy.value == small.value)
        #expect(!copy.headers.contains { $0.key == DeadLetter.truncatedHeader })
        let reference = DeadLetter.record(for: small, error: error, worker: "w", topic: "dlq", maximumBytes: 9_000)
        #expect(reference.value?.count == DeadLetter.referencePrefixBytes)
        #expect(reference.headers.contains { $0.key == DeadLetter.truncatedHeader })
        // The default limit is the producer's default message.max.bytes.
        let big = Self.consumed(value: Self.hostileBytes(1_500_000, seed: 4))
        #expect(DeadLetter.record(for: big, error: error, worker: "w", topic: "dlq").value?.count == 1024)
    }

    /// How the copy of a big record fails to fit.
    enum Limit: String, CaseIterable, CustomTestStringConvertible {
        /// The worker's configured dead-letter maximum (the producer's message.max.bytes).
        case configured
        /// No usable maximum: the producer refuses the copy (MSG_SIZE_TOO_LARGE) and the worker falls back.
        case producerRefusal
        var testDescription: String { rawValue }
    }

    @Test(
        "1.5 MB and 5 MB records before a valid intent: both parked as references, the intent resolved, the worker running",
        arguments: Limit.allCases)
    func bigRecordsDoNotStopTheWorker(limit: Limit) async throws {
        try await withPipeline { pipeline in
            let user = "u-big"
            try await pipeline.publishContacts(ResolveWorkerTests.contacts, user: user)
            // A producer allowed to write what the attacker writes (the local broker takes any size).
            var bigProducerConfiguration = producerConfiguration(pipeline.broker)
            bigProducerConfiguration.maximumMessageBytes = 8_000_000
            let big = try KafkaProducer(configuration: bigProducerConfiguration, logger: testLogger)
            let onContacts = Self.hostileBytes(1_500_000, seed: 11)
            let contactsReport = try await big.send(
                KafkaProducerMessage(topic: pipeline.topics.contacts, key: Array("bogus".utf8), value: onContacts))
            let inputs = [Self.hostileBytes(1_500_000, seed: 12), Self.hostileBytes(5_000_000, seed: 13)]
            var reports: [KafkaDeliveryReport] = []
            for value in inputs {
                reports.append(
                    try await big.send(
                        KafkaProducerMessage(topic: pipeline.topics.requested, key: Array(user.utf8), value: value)))
            }
            await big.shutdown()

            let key = Array(repeating: UInt8(0x5a), count: 32)
            let authenticator = EventAuthenticator(keys: ["/voice/test": key])
            var configuration = ResolveWorker.Configuration(
                kafka: clientConfiguration(pipeline.broker), topics: pipeline.topics, groupID: pipeline.groupID,
                authenticator: authenticator.withTestContacts, keys: testStageKeys, sessionTimeout: .seconds(6))
            if limit == .producerRefusal { configuration.deadLetterMaximumBytes = 64_000_000 }
            try await pipeline.start(ResolveWorker(configuration: configuration, logger: testLogger))

            // Same user, same partition, after the big records: its output means the worker went past them.
            let valid = pipeline.requestEvent(
                "after-big", user: user, turn: 1,
                .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "hi")))
            let validReport = try await pipeline.send(
                KafkaProducerMessage(topic: pipeline.topics.requested, event: valid, signedWith: authenticator))
            #expect(validReport.partition == reports[0].partition)
            let resolved = try await pipeline.output(for: "after-big", turn: 1)
            #expect(resolved.type == IntentResolutionReport.resolvedType)

            let letters = try await pipeline.deadLetters(count: 3)
            #expect(letters.count == 3)
            for (value, report) in zip([onContacts] + inputs, [contactsReport] + reports) {
                let letter = try #require(
                    letters.first {
                        $0.header(DeadLetter.topicHeader)?.stringValue == report.topic
                            && $0.header(DeadLetter.offsetHeader)?.stringValue == String(report.offset)
                    }, "no dead letter for \(report)")
                #expect(letter.header(DeadLetter.partitionHeader)?.stringValue == String(report.partition))
                #expect(letter.header(DeadLetter.originalSizeHeader)?.stringValue == String(value.count))
                #expect(
                    letter.header(DeadLetter.originalSHA256Header)?.stringValue == Digest.hex(Digest.sha256(value)))
                #expect(letter.header(DeadLetter.truncatedHeader)?.stringValue == "true")
                #expect(letter.value == Array(value.prefix(1024)))
                #expect(letter.header(DeadLetter.workerHeader)?.stringValue == pipeline.groupID)
                #expect(
                    letter.header(DeadLetter.refusalHeader)?.stringValue
                        == (limit == .producerRefusal ? "MSG_SIZE_TOO_LARGE" : nil))
            }
            let reasons = letters.filter { $0.header(DeadLetter.topicHeader)?.stringValue == pipeline.topics.requested }
                .map { $0.header(DeadLetter.reasonHeader)?.stringValue }
            #expect(reasons == ["oversized", "oversized"])

            // The group's committed offset moves past the big records (commits follow each batch).
            let partition = KafkaTopicPartition(topic: pipeline.topics.requested, partition: validReport.partition)
            let lookup = try KafkaOffsetLookup(
                configuration: clientConfiguration(pipeline.broker), groupID: pipeline.groupID, logger: testLogger)
            let deadline = ContinuousClock.now + .seconds(30)
            var committed: Int64? = nil
            while ContinuousClock.now < deadline {
                committed = try await lookup.committed([partition])[partition] ?? nil
                if let committed, committed > validReport.offset { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            await lookup.close()
            #expect((committed ?? -1) > validReport.offset, "committed \(String(describing: committed))")

            // Still running: a later intent is answered too, and the worker stops cleanly (no error).
            let later = pipeline.requestEvent(
                "later", user: user, turn: 1,
                .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "again")))
            _ = try await pipeline.send(
                KafkaProducerMessage(topic: pipeline.topics.requested, event: later, signedWith: authenticator))
            #expect(try await pipeline.output(for: "later", turn: 1).type == IntentResolutionReport.resolvedType)
            try await pipeline.stopWorker()
        }
    }
}
