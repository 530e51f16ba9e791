import Foundation
import IntentCrypto
import Intents
import Kafka
import PipelineTopics
import Testing

@testable import IntentEvents
@testable import StageCost

/// Every record the four stages publish (the decision paths ``StageCost`` measures: each
/// output encoded once into its value, signed, view-signed and chained as the workers do)
/// against the reference paths that existed before the encode path was rewritten: the
/// value is the event's canonical JSON as Foundation's encoder writes it, the signature
/// headers are the MACs ``EventAuthenticator/signature(for:)`` gives as strings, and the
/// chain headers verify as the audit checks them. So a change to how a stage writes its
/// records cannot change one byte on the wire.
@Suite("Published records: the same bytes as the reference encoders")
struct PublishedBytesTests {
    @Test("every output of every stage: value, signatures and chain link as the reference paths write them")
    func sameBytes() throws {
        let chain = try StageChain(users: 6)
        let resolved = chain.run(.resolve, chain.requests(from: 100, count: 60))
        let confirmed = chain.run(.confirm, chain.records(resolved, to: .resolved))
        var payments = chain.run(
            .payments, chain.records(confirmed, to: .confirmations) + (try chain.answers(to: confirmed)))
        var effects = chain.records(payments, to: .effects)
        while !effects.isEmpty {
            let more = chain.run(.payments, effects)
            payments += more
            effects = chain.records(more, to: .effects)
        }
        let handled = chain.run(.handle, chain.records(confirmed, to: .confirmed))
        let published = resolved + confirmed + payments + handled
        #expect(published.count > 200)
        var kinds = Set<String>()
        var chained = 0
        for (_, record) in published {
            let value = try #require(record.value)
            let event = try EventEnvelope.decode(value)
            kinds.insert(event.type)
            #expect(value == event.foundationEncoded(), "\(event.type) \(event.id)")
            let source = try #require(chain.stageKeys.signature(for: event))
            #expect(header(record, EventSignature.header) == source.hex)
            #expect(header(record, EventSignature.keyIDHeader) == source.keyID)
            if let view = chain.stageKeys.viewSignature(forCanonical: event.encoded(), source: event.source),
                header(record, EventSignature.viewHeader) != nil
            {
                #expect(header(record, EventSignature.viewHeader) == view.hex)
                #expect(header(record, EventSignature.viewKeyIDHeader) == view.keyID)
            }
            if let linkText = header(record, RecordChain.header) {
                chained += 1
                let link = try #require(RecordChain.Link(headerValue: linkText))
                let signature = try #require(
                    header(record, RecordChain.signatureHeader).flatMap(RecordChain.signature(headerValue:)))
                #expect(RecordChain.headerValue(of: signature) == header(record, RecordChain.signatureHeader))
                try RecordChain.verify(
                    signature, topic: record.topic, partition: try #require(record.partition), link: link, value: value,
                    keys: chain.stageKeys)
            }
        }
        // Every kind of event the stages derive was among them, and every record was chained.
        #expect(kinds.count >= 6, "\(kinds.sorted())")
        #expect(chained == published.count)
    }

    private func header(_ record: KafkaProducerMessage, _ key: String) -> String? {
        record.headers.last { $0.key == key }?.stringValue
    }
}
