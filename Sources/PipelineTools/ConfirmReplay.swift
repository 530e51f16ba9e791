public import Confirmation
public import Foundation
import IntentEvents
import Intents
public import Kafka
public import Logging
import Payments
public import PipelineTopics

/// Re-derives past confirm decisions on payments with the confirm stage of this
/// build (its limits, its balance rule): every resolved payment of a period is
/// confirmed again against the payer's ledger exactly as the decision saw it.
/// Each decision records the user's ledger version (``Ledger/version(of:)``: how
/// many of the user's ledger events were applied); the replay reads each ledger
/// partition in order and decides when the user's version is the recorded one.
/// The accounts directory is taken as it is now (an account closed since is
/// no account, and a payment to it is decided as it would be now).
public enum ConfirmReplay {
    public struct Change: Codable, Sendable, Hashable {
        public var intentID: String
        public var userID: String
        /// `code` or `code reason`, as decided and as decided now.
        public var before: String
        public var after: String
    }

    public struct Report: Codable, Sendable, Hashable {
        /// Payment decisions re-derived.
        public var replayed = 0
        /// Resolved payments with no confirm decision on the confirmations or responses topic.
        public var undecided = 0
        /// Decisions from a confirm stage that did not record the ledger version.
        public var unversioned = 0
        /// Decisions whose ledger version the ledger topic no longer reaches.
        public var ledgerUnavailable = 0
        public var changes: [Change] = []
    }

    public static func run(
        topics: PipelineTopics, configuration: KafkaConfiguration, logger: Logger, from: Date?, to: Date?,
        stage: ConfirmStage, progress: ReplayProgress? = nil
    ) async throws -> Report {
        var report = Report()
        func read(_ topic: String, windowed: Bool, _ body: (KafkaConsumerMessage) -> Void) async throws {
            try await TopicReader.forEachRecord(
                of: topic, from: windowed ? from : nil, to: to, configuration: configuration, logger: logger,
                progress: progress, body)
        }
        // What was decided, by the resolved event it decided on. A decision redone after a
        // crash may have seen a later version (its own hold applied meanwhile): the first
        // one published is the one that counted.
        var decisions: [String: (code: String, version: Int?)] = [:]
        func recordDecision(_ message: KafkaConsumerMessage) {
            guard let value = message.value, let event = try? EventEnvelope.decode(value),
                event.source == PipelineSource.confirm, let cause = event.causationID, decisions[cause] == nil
            else { return }
            if let decided = Decided(event) { decisions[cause] = (decided.summary, decided.ledgerVersion) }
        }
        try await read(topics.confirmations, windowed: true, recordDecision)
        try await read(topics.responses, windowed: true, recordDecision)
        // The payments to re-derive, waiting on their user's ledger version.
        var waiting: [Int32: [String: [Int: [Pending]]]] = [:]
        try await read(topics.resolved, windowed: true) { message in
            guard let value = message.value, let event = try? EventEnvelope.decode(value),
                let intentID = event.intentID,
                let kind = event.data.objectValue?["intent"]?.objectValue?["kind"]?.stringValue,
                kind == Intent.Kind.sendPayment.rawValue || kind == Intent.Kind.requestPayment.rawValue
            else { return }
            guard let decided = decisions[event.id] else {
                report.undecided += 1
                return
            }
            guard let version = decided.version else {
                report.unversioned += 1
                return
            }
            waiting[message.partition, default: [:]][event.userID, default: [:]][version, default: []].append(
                Pending(message: message, intentID: intentID, userID: event.userID, before: decided.code))
        }
        let directory = try await AccountsReader.directory(
            topic: topics.accounts, configuration: configuration, logger: logger, keys: stage.authenticator,
            progress: progress)
        func decide(_ pending: [Pending], _ ledger: Ledger) {
            for item in pending {
                report.replayed += 1
                let after = outcome(
                    stage.process(
                        key: item.message.keyString, value: item.message.value, signature: item.message.signature,
                        ledger: ledger, directory: directory))
                if after != item.before {
                    report.changes.append(
                        Change(intentID: item.intentID, userID: item.userID, before: item.before, after: after))
                }
            }
        }
        // Each partition's ledger in order: a decision is taken again when its user's
        // version is the one it recorded, before the user's next event.
        var ledgers: [Int32: Ledger] = [:]
        // Only what a ledger follower would apply: signed by an allowed writer, keyed by its user.
        let keys = stage.authenticator
        try await read(topics.ledger, windowed: false) { message in
            guard
                let (event, time) = try? LedgerRecord.read(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys)
            else { return }
            // Applied in place: a copy taken out of the table and put back made every event
            // copy the partition's whole ledger (copy-on-write), quadratic in the history.
            let version = ledgers[message.partition]?.version(of: event.userID) ?? 0
            if let due = waiting[message.partition]?[event.userID]?.removeValue(forKey: version) {
                decide(due, ledgers[message.partition] ?? Ledger())
            }
            _ = try? ledgers[message.partition, default: Ledger()].apply(event, at: time, checkingBalances: false)
        }
        for (partition, users) in waiting {
            let ledger = ledgers[partition] ?? Ledger()
            for (userID, versions) in users {
                for (version, due) in versions {
                    if version == ledger.version(of: userID) {
                        decide(due, ledger)
                    } else {
                        report.ledgerUnavailable += due.count
                    }
                }
            }
        }
        report.changes.sort { $0.intentID < $1.intentID }
        return report
    }

    private struct Pending {
        var message: KafkaConsumerMessage
        var intentID: String
        var userID: String
        var before: String
    }

    static func summary(_ code: ResponseCode, _ reason: String?) -> String {
        code.rawValue + (reason.map { " \($0)" } ?? "")
    }

    /// What a confirm stage's result decided: ready (a proposal), or the response's code.
    static func outcome(_ result: StageResult) -> String {
        if let error = result.rejected { return "rejected \(error.reason.rawValue)" }
        for (destination, event) in result.events where destination == .responses || destination == .confirmations {
            if let decided = Decided(event) { return decided.summary }
        }
        return "nothing"
    }

    /// A confirm decision (a proposal or a response) as the replay compares it: its code and
    /// reason, and the ledger version it saw. Read from the event's JSON tree rather than
    /// decoded: the replay decodes every recorded decision and every new one, and `Codable`
    /// was a sixth of its time for three fields.
    struct Decided {
        var summary: String
        var ledgerVersion: Int?

        /// Nil for an event that is neither, or whose code is not one.
        init?(_ event: EventEnvelope) {
            guard event.type == IntentConfirmation.type || event.type == IntentResponse.type,
                let fields = event.data.objectValue,
                let code = fields["code"]?.stringValue.flatMap(ResponseCode.init(rawValue:))
            else { return nil }
            let reason: String?
            switch fields["reason"] {
            case nil, .null?: reason = nil
            case .string(let text)?: reason = text
            default: return nil
            }
            switch fields["ledgerVersion"] {
            case nil, .null?: ledgerVersion = nil
            case .integer(let version)?: ledgerVersion = Int(exactly: version)
            default: return nil
            }
            summary = ConfirmReplay.summary(code, reason)
        }
    }
}
