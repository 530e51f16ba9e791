import Foundation
public import IntentEvents
public import Kafka
public import Logging
public import Payments
public import PipelineAudit
public import PipelineTopics

/// The audit of a pipeline's topics as they are now (`intentctl audit`, the demo,
/// the tests): reads the responses, ledger, confirmations, messages and dead
/// letters from the beginning, checks every intent's lifecycle
/// (``PipelineAudit``) and, given the keys, that the records are the ones the
/// pipeline wrote (``RecordIntegrity``).
public enum TopicAudit {
    public static func run(
        topics: PipelineTopics, configuration: KafkaConfiguration, logger: Logger, keys: EventAuthenticator? = nil,
        bindingKey: BindingKey? = nil
    ) async throws -> PipelineAudit.Report {
        var unreadable = 0
        var integrityRecords: [RecordIntegrity.Record] = []
        func read(_ topic: String, chained: Bool) async throws -> [EventEnvelope] {
            var events: [EventEnvelope] = []
            try await TopicReader.forEachRecord(of: topic, configuration: configuration, logger: logger) { message in
                guard let value = message.value, let event = try? EventEnvelope.decode(value) else {
                    unreadable += 1
                    return
                }
                events.append(event)
                if chained, keys != nil {
                    integrityRecords.append(
                        RecordIntegrity.Record(
                            topic: message.topic, role: String(message.topic.dropFirst(topics.prefix.count)),
                            partition: message.partition, offset: message.offset, value: value,
                            signature: message.signature,
                            chainLink: message.header(RecordChain.header)?.stringValue,
                            chainSignature: message.header(RecordChain.signatureHeader)?.stringValue))
                }
            }
            return events
        }
        let responses = try await read(topics.responses, chained: true)
        let ledger = try await read(topics.ledger, chained: true)
        let confirmations = try await read(topics.confirmations, chained: true)
        let messages = try await read(topics.messages, chained: false)
        // Dead letters are not all events (references to oversized records are not): those are skipped.
        let deadLetters = try await TopicReader.events(
            of: topics.deadLetter, configuration: configuration, logger: logger
        )
        .events
        var report = PipelineAudit.audit(
            responses: responses, ledger: ledger, confirmations: confirmations, messages: messages,
            deadLetters: deadLetters, bindingKey: bindingKey)
        if unreadable > 0 { report.findings.append("\(unreadable) records are not events") }
        if let keys {
            let integrity = RecordIntegrity.check(integrityRecords, keys: keys)
            report.integrity = integrity
            report.findings += integrity.findings.map(\.description)
        }
        return report
    }
}
