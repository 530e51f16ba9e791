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
/// `creditTransitLimit`: how long a posted transfer's credit may be on its way to its
/// payee's member (``CreditDeadline``; nil: any time).
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

    /// Where a period ends in each partition of one topic: at the first record dated after
    /// `to`, as the broker's time index ends it, except that a record dated in the future
    /// (after `futureLimit`) is stepped over instead, and counts for nothing. So a period
    /// stays a prefix of each partition, as the ledger's sums need, and one record dated
    /// in the future (a forger's, or a producer's wrong clock) cannot end every period's
    /// read of its partition there, hiding everything after it.
    struct PeriodCut {
        let to: Date?
        let futureLimit: Date
        private var ended: Set<Int32> = []

        init(to: Date?, futureLimit: Date) {
            self.to = to
            self.futureLimit = futureLimit
        }

        /// Whether the record at the read's position in `partition`, dated `time`, is the
        /// period's (a record without a time is).
        mutating func admits(_ time: Date?, partition: Int32) -> Bool {
            guard !ended.contains(partition) else { return false }
            guard let time, let to, time > to else { return true }
            if time <= futureLimit { ended.insert(partition) }
            return false
        }
    }

    /// How far ahead of the auditor's clock, when its topic's read began, a record may be
    /// dated before it is a finding: the producers' and the auditor's clocks drift apart by
    /// far less.
    static let clockTolerance: TimeInterval = 300

    public static func run(
        topics: PipelineTopics, configuration: KafkaConfiguration, logger: Logger, keys: EventAuthenticator? = nil,
        bindingKey: BindingKey? = nil, window: Window? = nil, progress: ReplayProgress? = nil,
        creditTransitLimit: Duration? = CreditDeadline.defaultLimit
    ) async throws -> PipelineAudit.Report {
        // Credits are measured against the period's end, or against when the reading began.
        let creditDeadline = creditTransitLimit.map {
            CreditDeadline(asOf: Timestamp(window?.to ?? Date()), limit: $0)
        }
        var unreadable = 0
        // Records dated after their topic's read began (a producer's clock, or a forger's
        // date), and the first.
        var futureDated: (count: Int, first: String?) = (0, nil)
        var audit = StreamingAudit()
        var summary = window.map {
            PipelineAudit.Window(from: EventTime.format($0.from), to: $0.to.map(EventTime.format))
        }
        // Responses, messages and requests are read from the window's start; the ledger, the
        // confirmations and the dead letters from their start (balances need every entry).
        let fromWindowStart: Set<String> = window == nil ? [] : [topics.responses, topics.messages, topics.requested]
        // Topics read from a point in their history rather than their start, for the integrity
        // check: those, and chained topics whose start retention deleted (each chain's first
        // record there names one before it, as in a period).
        var windowed = fromWindowStart
        if keys != nil {
            let fromStart = topics.chained.keys.filter { !windowed.contains($0) }
            try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { lookup in
                for topic in fromStart where try await lookup.bounds(of: topic).values.contains(where: { $0.low > 0 }) {
                    windowed.insert(topic)
                }
            }
        }
        var integrity = keys.map {
            RecordIntegrity.Checker(
                keys: $0, readFromWindow: windowed, internalOnly: [topics.ledger, topics.responses])
        }
        // Records of a topic read with `verifyingSignatures` that the keys do not verify, and the
        // first's reason.
        var unsigned: (count: Int, first: String?) = (0, nil)
        /// Feeds the topic's records to `body`, from the window's start when it is read from
        /// there (else from its start) up to the window's end, or to its end when `whole`;
        /// those of a chained topic also to the integrity check. With `verifyingSignatures`
        /// and the keys, a record of a topic the integrity check does not cover counts only
        /// when the keys verify its signature (else in `unsigned`).
        func read(
            _ topic: String, whole: Bool = false, verifyingSignatures: Bool = false,
            eachRecord: ((KafkaConsumerMessage) -> Void)? = nil, _ body: (EventEnvelope) -> Void
        ) async throws {
            let role = keys == nil ? nil : topics.chained[topic]
            // Ledger events are read straight from their bytes (``LedgerEvent/decode(from:)``).
            let deferringData = topic == topics.ledger
            var start: [KafkaTopicPartition: Int64]?
            if let window, fromWindowStart.contains(topic) {
                let located = try await TopicReader.offsets(
                    of: topic, at: window.from, configuration: configuration, logger: logger)
                start = located.mapValues(\.offset.offset)
                let how = Set(located.values.map(\.source.rawValue)).sorted().joined(separator: "+")
                summary?.located[String(topic.dropFirst(topics.prefix.count))] = how
            }
            // Read to each partition's end (taken now: every record read was written before
            // this moment), the period cut as ``PeriodCut`` says.
            let futureLimit = Date().addingTimeInterval(Self.clockTolerance)
            var cut = PeriodCut(to: whole ? nil : window?.to, futureLimit: futureLimit)
            try await TopicReader.forEachRecord(
                of: topic, between: start, and: nil, configuration: configuration, logger: logger
            ) { message in
                progress?.advance()
                if let time = message.timestamp, time > futureLimit {
                    futureDated.count += 1
                    futureDated.first =
                        futureDated.first
                        ?? "\(message.topic) partition \(message.partition) offset \(message.offset), dated \(EventTime.format(time))"
                }
                let inWindow = cut.admits(message.timestamp, partition: message.partition)
                if inWindow { eachRecord?(message) }
                // As the workers read a record: a binary-mode event (CloudEvents `ce_*` headers, as a
                // voice service may answer) in its structured form, whose bytes its signature covers.
                guard let message = try? message.structuredEvent(), let value = message.value,
                    let event = try? EventEnvelope.decode(value, deferringData: deferringData)
                else {
                    if inWindow { unreadable += 1 }
                    return
                }
                // A forged or modified record (given the keys) is a finding, and counts for
                // nothing in the rules below: no worker applied it, so neither does the audit.
                if let role,
                    integrity?.check(
                        RecordIntegrity.Record(
                            topic: message.topic, role: role,
                            partition: message.partition, offset: message.offset, value: value,
                            signature: message.signature,
                            chainLink: message.header(RecordChain.header)?.stringValue,
                            chainSignature: message.header(RecordChain.signatureHeader)?.stringValue, event: event))
                        == false
                {
                    return
                }
                if verifyingSignatures, let keys {
                    do throws(EventDecodingError) {
                        try keys.verify(event, received: value, signature: message.signature)
                    } catch {
                        unsigned.count += 1
                        unsigned.first = unsigned.first ?? "\(event.id): \(error.message)"
                        return
                    }
                }
                if inWindow { body(event) }
            }
        }
        // Intents seen in the window, and those whose first turn was requested in it.
        var seen: Set<String> = []
        var begun: Set<String> = []
        try await read(topics.responses) { event in
            audit.response(event)
            if window != nil, let intentID = event.intentID { seen.insert(intentID) }
        }
        try await read(topics.ledger) { audit.ledgerRecord($0) }
        // The accounts topic whole, in its one order (who held a handle when): only what the
        // ledger operator signed, when the keys are given.
        try await TopicReader.forEachRecord(of: topics.accounts, configuration: configuration, logger: logger) {
            message in
            guard let value = message.value, let event = try? EventEnvelope.decode(value) else { return }
            if let keys {
                guard
                    (try? AccountRecord.decode(
                        key: message.keyString, value: value, signature: message.signature, keys: keys)) != nil
                else { return }
            }
            audit.accountRecord(event)
        }
        try await read(topics.confirmations) { audit.confirmation($0) }
        // The resolved intents, whole (a proposal may come long after its resolution), each
        // admitted only as the confirm stage admits it: given the keys, signed by the resolve
        // stage (the topic is not chained, so the integrity check does not cover it). Retention
        // trims the topic, so the audit cannot know it read every resolution.
        try await read(topics.resolved, whole: true, verifyingSignatures: true) { audit.resolvedIntent($0) }
        audit.resolvedIntentsRead(complete: false)
        try await read(topics.messages) { event in
            audit.message(event)
            if window != nil, let intentID = event.intentID { seen.insert(intentID) }
        }
        // Dead letters are not all events (references to oversized records are not): those are skipped.
        let before = unreadable
        // Counted by their reason header, events or not: what the pipeline refused and parked.
        var deadLetters: [String: Int] = [:]
        try await read(
            topics.deadLetter,
            eachRecord: { deadLetters[$0.header(DeadLetter.reasonHeader)?.stringValue ?? "unknown", default: 0] += 1 },
            { audit.deadLetter($0) })
        unreadable = before
        if window != nil {
            try await read(topics.requested) { request in
                if let intentID = request.intentID, let requested = try? request.decodeData(as: IntentRequested.self),
                    requested.turn == 1
                {
                    begun.insert(intentID)
                }
            }
            summary?.intentsBeganBefore = seen.subtracting(begun).sorted()
        }
        var report = audit.report(bindingKey: bindingKey, creditDeadline: creditDeadline)
        report.window = summary
        report.deadLetters = deadLetters
        if unreadable > 0 { report.findings.append("\(unreadable) records are not events") }
        if let first = unsigned.first {
            report.findings.append(
                "\(unsigned.count) records of \(topics.resolved) are not signed by their source's key (the first: \(first))"
            )
        }
        if let first = futureDated.first {
            report.findings.append(
                "\(futureDated.count) records are dated after their topic's read began (the first: \(first)); no producer's clock is that far ahead"
            )
        }
        if let integrity {
            let checked = integrity.report()
            report.integrity = checked
            report.findings += checked.findings.map(\.description)
        }
        return report
    }
}
