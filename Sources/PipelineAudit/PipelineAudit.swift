public import IntentEvents
public import Payments

/// Checks the lifecycle of every intent from the topics alone, the way an
/// auditor replays them: one final response per intent, one hold and one
/// post-or-void per transfer, balances equal to the sums of their entries and
/// never negative, money neither created nor lost, every posted transfer
/// confirmed by its payer (with a matching binding when the key is given),
/// and every message sent once. Pure: the caller reads the topics.
public enum PipelineAudit {
    public struct Report: Codable, Sendable, Hashable {
        /// An empty report: nothing read, nothing found.
        public init() {}

        /// Intents with at least one response.
        public var intents = 0
        /// Intents whose only responses so far are inProgress.
        public var pendingIntents: [String] = []
        public var postedTransfers = 0
        public var voidedTransfers = 0
        public var heldTransfers = 0
        /// Posted transfers whose credit is on its way to the payee's member (its effect
        /// is on the confirmations topic, not yet recorded): money in clearing, not lost.
        public var creditsInTransit = 0
        public var messagesDelivered = 0
        /// Dead letters read, by reason (their `dlq-reason` header: `unparseable`, `stale`,
        /// `wrong_producer`, ...): records a stage refused and parked rather than acted on.
        /// Not findings (refusing is the pipeline working), but an operator wants the count.
        public var deadLetters: [String: Int] = [:]
        /// Every broken rule, one sentence each; empty when all holds.
        public var findings: [String] = []
        /// What checking the confirmed bindings with the key given found
        /// (``BindingKeyCheck``); `notChecked` without a key.
        public var bindingKeyCheck = BindingKeyCheck.notChecked
        /// Posted transfers by intent id (for callers that know which payments should have moved).
        public var postedIntents: [String] = []
        /// Delivered message ids by intent id.
        public var deliveredMessages: [String: Int] = [:]
        /// Signatures and chains (``RecordIntegrity``), checked when the auditor has the
        /// keys; each of its findings is among ``findings`` too.
        public var integrity: RecordIntegrity.Report?
        /// Set when a time window was audited (``Window``).
        public var window: Window?
        /// Ledger events that count for nothing, each with why: written by a payments member
        /// under a claim another member had overtaken (it stalled and lost the partition), or
        /// a claim not newer than its partition's latest (``LedgerOwnership``). Not findings:
        /// the fencing that refuses them is the pipeline working.
        public var fencedWrites: [String] = []
    }

    /// What a window audit read. Responses, messages and requests are read from the
    /// window's start (offsets by time); the ledger and the confirmations from their
    /// start, because every balance is the sum of all earlier entries; all up to its end.
    public struct Window: Codable, Sendable, Hashable {
        public var from: String
        public var to: String?
        /// How each windowed topic's start was found: the broker's time index, or a scan
        /// where the broker's answer was wrong (``KafkaTimestampOffset``).
        public var located: [String: String] = [:]
        /// Intents with events in the window whose first turn was requested before it:
        /// their earlier events are not in the window, so they are listed, not judged incomplete.
        public var intentsBeganBefore: [String] = []

        public init(from: String, to: String?) {
            self.from = from
            self.to = to
        }
    }

    /// Whether the key given is the one the pipeline binds confirmations with.
    /// One binding that does not match is a confirmation tampered with; none
    /// of several matching is the auditor holding another key, which says
    /// nothing about the payments, and is reported as that, not as tampering.
    public enum BindingKeyCheck: String, Codable, Sendable, Hashable {
        /// No key given, or no posted transfer to check.
        case notChecked
        /// Every posted transfer's confirmation matches its binding.
        case verified
        /// Some confirmations do not match (each is a finding): tampering.
        case mismatches
        /// Two or more bindings and none matches: the key is not the pipeline's.
        case wrongKey
    }

    /// `deadLetters` (the dead-letter topic's records, the original events) tells a credit
    /// still on its way from one its payee's member refused. The topics read whole;
    /// ``StreamingAudit`` reads them a record at a time.
    public static func audit(
        responses: [EventEnvelope], ledger: [EventEnvelope], confirmations: [EventEnvelope],
        messages: [EventEnvelope], deadLetters: [EventEnvelope] = [], accounts: [EventEnvelope] = [],
        bindingKey: BindingKey? = nil, creditDeadline: CreditDeadline? = nil
    ) -> Report {
        var audit = StreamingAudit()
        for record in accounts { audit.accountRecord(record) }
        for event in responses { audit.response(event) }
        for record in ledger { audit.ledgerRecord(record) }
        for record in confirmations { audit.confirmation(record) }
        for record in messages { audit.message(record) }
        for record in deadLetters { audit.deadLetter(record) }
        return audit.report(bindingKey: bindingKey, creditDeadline: creditDeadline)
    }
}
