public import Foundation
public import IntentEvents
import Intents
public import Kafka
public import Logging
public import Payments
public import PipelineAudit
public import PipelineTopics

/// The audit of a pipeline's topics as they are now (`intentctl audit`, the demo,
/// the tests): reads the responses, ledger, confirmations, messages and dead
/// letters, checks every intent's lifecycle (``PipelineAudit``) and, given the
/// keys, that the records are the ones the pipeline wrote (``RecordIntegrity``).
public enum TopicAudit {
    /// A period to audit; `to` nil is now.
    public struct Window: Sendable, Hashable {
        public var from: Date
        public var to: Date?

        public init(from: Date, to: Date? = nil) {
            self.from = from
            self.to = to
        }
    }

    public static func run(
        topics: PipelineTopics, configuration: KafkaConfiguration, logger: Logger, keys: EventAuthenticator? = nil,
        bindingKey: BindingKey? = nil, window: Window? = nil, progress: ReplayProgress? = nil
    ) async throws -> PipelineAudit.Report {
        var unreadable = 0
        var integrityRecords: [RecordIntegrity.Record] = []
        var summary = window.map {
            PipelineAudit.Window(from: EventTime.format($0.from), to: $0.to.map(EventTime.format))
        }
        var windowed: Set<String> = []
        /// The topic's records, from the window's start when `fromWindow` (else from its
        /// start), up to the window's end; those of a chained topic also for the integrity check.
        func read(_ topic: String, fromWindow: Bool) async throws -> [EventEnvelope] {
            let role = keys == nil ? nil : topics.chained[topic]
            var start: [KafkaTopicPartition: Int64]?
            var end: [KafkaTopicPartition: Int64]?
            if let window {
                if fromWindow {
                    let located = try await TopicReader.offsets(
                        of: topic, at: window.from, configuration: configuration, logger: logger)
                    start = located.mapValues(\.offset.offset)
                    let how = Set(located.values.map(\.source.rawValue)).sorted().joined(separator: "+")
                    summary?.located[String(topic.dropFirst(topics.prefix.count))] = how
                    windowed.insert(topic)
                }
                if let to = window.to {
                    end = try await TopicReader.offsets(of: topic, at: to, configuration: configuration, logger: logger)
                        .mapValues(\.offset.offset)
                }
            }
            var events: [EventEnvelope] = []
            try await TopicReader.forEachRecord(
                of: topic, between: start, and: end, configuration: configuration, logger: logger
            ) { message in
                progress?.advance()
                guard let value = message.value, let event = try? EventEnvelope.decode(value) else {
                    unreadable += 1
                    return
                }
                events.append(event)
                if let role {
                    integrityRecords.append(
                        RecordIntegrity.Record(
                            topic: message.topic, role: role,
                            partition: message.partition, offset: message.offset, value: value,
                            signature: message.signature,
                            chainLink: message.header(RecordChain.header)?.stringValue,
                            chainSignature: message.header(RecordChain.signatureHeader)?.stringValue, event: event))
                }
            }
            return events
        }
        let responses = try await read(topics.responses, fromWindow: true)
        let ledger = try await read(topics.ledger, fromWindow: false)
        let confirmations = try await read(topics.confirmations, fromWindow: false)
        let messages = try await read(topics.messages, fromWindow: true)
        // Dead letters are not all events (references to oversized records are not): those are skipped.
        let before = unreadable
        let deadLetters = try await read(topics.deadLetter, fromWindow: false)
        unreadable = before
        if window != nil {
            let requests = try await read(topics.requested, fromWindow: true)
            summary?.intentsBeganBefore = beganBefore(responses: responses, messages: messages, requests: requests)
        }
        var report = PipelineAudit.audit(
            responses: responses, ledger: ledger, confirmations: confirmations, messages: messages,
            deadLetters: deadLetters, bindingKey: bindingKey)
        report.window = summary
        if unreadable > 0 { report.findings.append("\(unreadable) records are not events") }
        if let keys {
            // A chained topic whose start was deleted by retention is read from a point in
            // its history, like a period: each chain's first record there names one before it.
            let fromStart = topics.chained.keys.filter { !windowed.contains($0) }
            try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { lookup in
                for topic in fromStart where try await lookup.bounds(of: topic).values.contains(where: { $0.low > 0 }) {
                    windowed.insert(topic)
                }
            }
            let integrity = RecordIntegrity.check(integrityRecords, keys: keys, readFromWindow: windowed)
            report.integrity = integrity
            report.findings += integrity.findings.map(\.description)
        }
        return report
    }

    /// Intents with responses or messages in the window whose first turn was not requested in it.
    private static func beganBefore(
        responses: [EventEnvelope], messages: [EventEnvelope], requests: [EventEnvelope]
    ) -> [String] {
        var begun: Set<String> = []
        for request in requests {
            if let intentID = request.intentID, let requested = try? request.decodeData(as: IntentRequested.self),
                requested.turn == 1
            {
                begun.insert(intentID)
            }
        }
        let seen = Set((responses + messages).compactMap(\.intentID))
        return seen.subtracting(begun).sorted()
    }
}
