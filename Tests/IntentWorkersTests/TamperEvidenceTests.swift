import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Payments
import PipelineAudit
import PipelineTestSupport
import PipelineTopics
import Testing

/// Tampering with the audited topics after the fact, the way an attacker with
/// write access to the cluster would: the pipeline runs two real payments,
/// then the topics are copied under a new prefix through a raw producer, with
/// one ledger record modified, forged, deleted, replayed or moved. `intentctl
/// audit` with the stages' keys must exit 1 with exactly that finding; the
/// untouched copy exits 0.
@Suite(
    "Tamper evidence: signatures and hash chains, against a local broker", .heavyTimeLimit(minutes: 5), .longHeavyTest)
struct TamperEvidenceTests {
    /// One tampering of the payer's ledger partition: the records of the payments
    /// stage's chain there, in order (at least three), become what the closure returns.
    typealias Tampering = (_ chain: [KafkaConsumerMessage]) throws -> [KafkaConsumerMessage]

    @Test("each tampering of the ledger is its own finding; the untouched topics audit clean")
    func tampering() async throws {
        try await withMoneyPipeline { pipeline in
            for intentID in ["pay-1", "pay-2"] {
                try await pipeline.requestSigned(
                    pipeline.signed(
                        intentID,
                        .sendPayment(
                            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("100", "CNY")))))
                let request = try await pipeline.event(for: intentID, type: ConfirmationRequest.type)
                    .decodeData(as: ConfirmationRequest.self)
                #expect(try await pipeline.answer(intentID, request.binding, .confirmed).code == .success)
            }
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let records = try await Self.records(of: pipeline.topics, pipeline.broker)
            try await OperatorCommandTests.withStageKeyFile { keyFile in

                let untouched = try await Self.audit(copying: records, pipeline.broker, keyFile) { $0 }
                #expect(untouched.status == 0, "\(untouched.output)")
                #expect(untouched.kinds == [], "\(untouched.output)")

                let forger = EventAuthenticator(keys: [PipelineSource.payments: Array(repeating: 0x5a, count: 32)])
                let cases: [(RecordIntegrity.Kind, Tampering)] = [
                    (
                        .modified,
                        { chain in
                            var chain = chain
                            chain[1].value = try Self.changed(chain[1].value ?? [])
                            return chain
                        }
                    ),
                    (
                        .forged,
                        { chain in
                            // A copy of a genuine record with another id, signed with a key that is not the stage's.
                            var event = try EventEnvelope.decode(chain[1].value ?? [])
                            event.id += "-forged"
                            let forged = KafkaProducerMessage(topic: chain[1].topic, event: event, signedWith: forger)
                            var record = chain[1]
                            record.value = forged.value
                            record.headers = forged.headers
                            return Array(chain[...1]) + [record] + chain[2...]
                        }
                    ),
                    (.deleted, { chain in Array(chain[...0]) + chain[2...] }),
                    (.replayed, { chain in chain + [chain[0]] }),
                    (.reordered, { chain in [chain[0], chain[2], chain[1]] + chain[3...] }),
                ]
                for (kind, tampering) in cases {
                    let tampered = try await Self.audit(copying: records, pipeline.broker, keyFile, tampering)
                    #expect(tampered.status == 1, "\(kind): \(tampered.output)")
                    #expect(tampered.kinds == [kind], "\(kind): \(tampered.output)")
                }
            }
        }
    }

    @Test("a made-up link appended to a partition never becomes a worker's predecessor")
    func poisonedTip() async throws {
        try await withMoneyPipeline { pipeline in
            // Before the payments worker first writes on Alice's partition of the responses, someone
            // appends a record whose link names the payments stage and a made-up hash.
            let partition = KafkaPartitioner.partition(forKey: "alice", partitions: PipelineHarness.partitions)
            _ = try await pipeline.send(
                KafkaProducerMessage(
                    topic: pipeline.topics.responses, partition: partition, key: Array("alice".utf8),
                    value: Array("not an event".utf8),
                    headers: [
                        KafkaHeader(
                            key: RecordChain.header,
                            string: "\(PipelineSource.payments) \(String(repeating: "ab", count: 32)) 0123456789abcdef"),
                        KafkaHeader(
                            key: RecordChain.signatureHeader,
                            string: "0011223344556677 \(String(repeating: "cd", count: 32))"),
                    ]))
            try await pipeline.requestSigned(
                pipeline.signed(
                    "after-poison",
                    .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("100", "CNY")))))
            let request = try await pipeline.event(for: "after-poison", type: ConfirmationRequest.type)
                .decodeData(as: ConfirmationRequest.self)
            #expect(try await pipeline.answer("after-poison", request.binding, .confirmed).code == .success)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            // The stage's response follows a verified link (here: none, a new chain), not the made-up
            // one: no record of the stage looks deleted. The junk itself is not an event.
            let report = try await pipeline.audit()
            #expect(report.integrity?.findings == [], "\(report.findings)")
            #expect(report.findings == ["1 records are not events"])
        }
    }

    /// The value with its conversation id changed: still a valid event, no longer the one signed.
    static func changed(_ value: [UInt8]) throws -> [UInt8] {
        var event = try EventEnvelope.decode(value)
        event.conversationID += "-changed"
        return event.encoded()
    }

    /// Every record of the audited topics (and the dead letters), by topic name without the
    /// prefix, in partition order.
    static func records(of topics: PipelineTopics, _ broker: LocalBroker) async throws -> [String:
        [KafkaConsumerMessage]]
    {
        var records: [String: [KafkaConsumerMessage]] = [:]
        for topic in [topics.responses, topics.ledger, topics.confirmations, topics.messages, topics.deadLetter] {
            var read: [KafkaConsumerMessage] = []
            try await TopicReader.forEachRecord(
                of: topic, configuration: clientConfiguration(broker), logger: testLogger
            ) { read.append($0) }
            records[String(topic.dropFirst(topics.prefix.count))] = read.sorted {
                ($0.partition, $0.offset) < ($1.partition, $1.offset)
            }
        }
        return records
    }

    /// Copies `records` to new topics (a new prefix), with the payments stage's chain on the
    /// first ledger partition that has three of its records tampered with, and audits the copy.
    static func audit(
        copying records: [String: [KafkaConsumerMessage]], _ broker: LocalBroker, _ keyFile: URL,
        _ tampering: Tampering
    ) async throws -> (status: Int32, output: String, kinds: [RecordIntegrity.Kind]) {
        let prefix = uniqueName("tampered") + "."
        let target = PipelineTopics(prefix: prefix)
        try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
            try await $0.createTopics(target.specifications(partitions: PipelineHarness.partitions))
        }
        let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
        var tampered = false
        for (name, topicRecords) in records.sorted(by: { $0.key < $1.key }) {
            let isLedger = name == PipelineTopics(prefix: "").ledger
            var copies: [KafkaConsumerMessage] = []
            for partition in Set(topicRecords.map(\.partition)).sorted() {
                var inPartition = topicRecords.filter { $0.partition == partition }
                let chain = inPartition.filter {
                    $0.header(RecordChain.header)?.stringValue?.hasPrefix(PipelineSource.payments + " ") == true
                }
                if isLedger, !tampered, chain.count >= 3 {
                    // The chain's records replaced, in place, by the tampered ones.
                    let others = inPartition.filter { record in !chain.contains { $0.offset == record.offset } }
                    inPartition = others + (try tampering(chain))
                    tampered = true
                }
                copies += inPartition
            }
            _ = try await producer.sendAll(
                copies.map {
                    KafkaProducerMessage(
                        topic: prefix + name, partition: $0.partition, key: $0.key, value: $0.value,
                        headers: $0.headers)
                })
        }
        await producer.shutdown()
        #expect(tampered, "no ledger partition has three records of the payments stage's chain")
        let (status, report, output) = try await OperatorCommandTests.runJSON(
            broker, ["audit", "--stage-keys", keyFile.path], as: PipelineAudit.Report.self,
            environment: ["INTENT_TOPIC_PREFIX": prefix])
        return (status, output, report?.integrity?.findings.map { $0.kind } ?? [])
    }
}
