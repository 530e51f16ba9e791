public import IntentEvents
import Intents
import Messaging
public import Payments

/// Checks the lifecycle of every intent from the topics alone, the way an
/// auditor replays them: one final response per intent, one hold and one
/// post-or-void per transfer, balances equal to the sums of their entries and
/// never negative, money neither created nor lost, every posted transfer
/// confirmed by its payer (with a matching binding when the key is given),
/// and every message sent once. Pure: the caller reads the topics.
public enum PipelineAudit {
    public struct Report: Codable, Sendable, Hashable {
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
    /// still on its way from one its payee's member refused.
    public static func audit(
        responses: [EventEnvelope], ledger ledgerRecords: [EventEnvelope], confirmations: [EventEnvelope],
        messages: [EventEnvelope], deadLetters: [EventEnvelope] = [], bindingKey: BindingKey? = nil
    ) -> Report {
        var report = Report()
        checkResponses(responses, &report)
        let (ledger, posts, credits) = checkLedger(
            ledgerRecords, sent: creditsSent(confirmations), refused: creditsSent(deadLetters), &report)
        checkConfirmations(ledger, confirmations, bindingKey, &report)
        checkPayees(ledger, posts, credits, confirmations, &report)
        checkMessages(messages, &report)
        return report
    }

    private static func checkResponses(_ responses: [EventEnvelope], _ report: inout Report) {
        var finals: [String: [(id: String, code: ResponseCode)]] = [:]
        var seen: Set<String> = []
        for event in responses {
            guard let intentID = event.intentID, let response = try? event.decodeData(as: IntentResponse.self) else {
                report.findings.append("response \(event.id) cannot be read")
                continue
            }
            seen.insert(intentID)
            if response.code.isFinal { finals[intentID, default: []].append((event.id, response.code)) }
        }
        report.intents = seen.count
        report.pendingIntents = seen.filter { finals[$0] == nil }.sorted()
        for (intentID, events) in finals.sorted(by: { $0.key < $1.key }) {
            let ids = Set(events.map(\.id))
            if ids.count != 1 {
                report.findings.append("intent \(intentID) has \(ids.count) different final responses")
            }
            let codes = Set(events.map(\.code.rawValue))
            if codes.count != 1 { report.findings.append("intent \(intentID) ended with codes \(codes.sorted())") }
        }
    }

    /// The transfers whose credit effect is among `records` (sent: the confirmations topic;
    /// refused: the dead-letter topic).
    private static func creditsSent(_ confirmations: [EventEnvelope]) -> Set<String> {
        var sent: Set<String> = []
        for record in confirmations where record.type == LedgerEvent.type {
            if let event = try? LedgerEvent.decode(from: record), event.kind == .credit,
                let transferID = event.transferID
            {
                sent.insert(transferID)
            }
        }
        return sent
    }

    private static func checkLedger(
        _ records: [EventEnvelope], sent creditsSent: Set<String>, refused creditsRefused: Set<String>,
        _ report: inout Report
    ) -> (Ledger, [LedgerEvent], [String: LedgerEvent]) {
        var unique: [String: LedgerEvent] = [:]
        var holds: [String: LedgerEvent] = [:]
        var ledger = Ledger()
        var sums: [String: Int64] = [:]
        // In topic order: a transfer's hold, post and void share the payer's partition.
        for record in records {
            guard let event = try? LedgerEvent.decode(from: record) else {
                report.findings.append("ledger record \(record.id) cannot be read")
                continue
            }
            if let earlier = unique[event.id], earlier != event {
                report.findings.append("ledger event \(event.id) was written twice with different contents")
            }
            guard unique[event.id] == nil else { continue }
            unique[event.id] = event
            if event.kind == .hold, let transferID = event.transferID { holds[transferID] = event }
            // The auditor's own rules and sums first, from the raw entries: independent of Ledger.apply.
            if let violation = EntryShape.violation(
                of: event, hold: event.kind == .credit ? nil : event.transferID.flatMap { holds[$0] })
            {
                report.findings.append("ledger event \(event.id): \(violation)")
            }
            for entry in event.entries {
                let key = "\(entry.account) \(entry.amount.currency)"
                let micros = Money(entry.amount).micros
                let (sum, overflow) = sums[key, default: 0].addingReportingOverflow(
                    entry.side == .credit ? micros : -micros)
                if overflow { report.findings.append("\(entry.account) \(entry.amount.currency) overflows") }
                sums[key] = sum
            }
            do throws(Ledger.ApplyError) {
                try ledger.apply(event, checkingBalances: false)
            } catch {
                report.findings.append("ledger event \(event.id) breaks the ledger: \(error)")
            }
        }
        let byTransfer = Dictionary(grouping: unique.values.filter { $0.transferID != nil }) { $0.transferID! }
        var inTransit: [String: Int64] = [:]
        for (transferID, events) in byTransfer.sorted(by: { $0.key < $1.key }) {
            let kinds = events.map(\.kind)
            let holds = kinds.filter { $0 == .hold }.count
            let ends = kinds.filter { $0 == .post || $0 == .void }.count
            let posts = kinds.filter { $0 == .post }.count
            let credits = kinds.filter { $0 == .credit }.count
            // Posted, its credit sent and not yet recorded: on its way, not lost, unless the
            // payee's member refused it (dead-lettered): then the money is stuck in clearing.
            let uncredited = posts == 1 && credits == 0
            if uncredited && creditsRefused.contains(transferID) {
                report.findings.append(
                    "transfer \(transferID): its credit was dead-lettered by the payee's member; the money is in clearing"
                )
            }
            let travelling = uncredited && creditsSent.contains(transferID) && !creditsRefused.contains(transferID)
            if travelling, let amount = events.first(where: { $0.kind == .hold })?.amount {
                report.creditsInTransit += 1
                inTransit[amount.currency, default: 0] &+= Money(amount).micros
            }
            if holds != 1 || ends > 1 || (credits != posts && !travelling) {
                report.findings.append("transfer \(transferID): \(kinds.map(\.rawValue).sorted())")
            }
            // The credit reaches exactly the payee the hold named, with the held amount.
            if let hold = events.first(where: { $0.kind == .hold }),
                let credit = events.first(where: { $0.kind == .credit }),
                credit.userID != hold.counterpartyUserID || credit.amount != hold.amount
            {
                report.findings.append(
                    "transfer \(transferID) credited \(credit.userID) \(credit.amount.map(\.description) ?? "nothing") but its hold names \(hold.counterpartyUserID ?? "nobody") \(hold.amount.map(\.description) ?? "nothing")"
                )
            }
        }
        // Posted money waits in clearing until its payee's member credits it: only the credits
        // on their way may be there.
        for (key, micros) in sums.sorted(by: { $0.key < $1.key }) where key.hasPrefix(Ledger.clearing) {
            let currency = String(key.split(separator: " ").last ?? "")
            if micros != inTransit[currency, default: 0] {
                report.findings.append(
                    "\(key) holds \(micros) micro-units posted but never credited to a payee (\(inTransit[currency, default: 0]) on their way)"
                )
            }
        }
        // Balances from the raw entries (the auditor's), compared with the ledger's own.
        for (account, money) in ledger.allBalances where money.micros != sums["\(account) \(money.currency)"] ?? 0 {
            report.findings.append("\(account) \(money.currency) is not the sum of its entries")
        }
        for (key, micros) in sums.sorted(by: { $0.key < $1.key }) where key.hasPrefix("users/") && micros < 0 {
            report.findings.append("\(key) is negative (\(micros) micro-units)")
        }
        // Money enters only by deposits: what users hold, per currency, is what was deposited.
        var deposited: [String: Int64] = [:]
        var held: [String: Int64] = [:]
        for event in unique.values where event.kind == .deposit {
            if let amount = event.amount { deposited[amount.currency, default: 0] &+= Money(amount).micros }
        }
        for (key, micros) in sums where key.hasPrefix("users/") {
            held[String(key.split(separator: " ").last ?? ""), default: 0] &+= micros
        }
        for (currency, micros) in inTransit { held[currency, default: 0] &+= micros }
        for currency in Set(deposited.keys).union(held.keys).sorted()
        where deposited[currency, default: 0] != held[currency, default: 0] {
            report.findings.append(
                "\(currency): users hold \(held[currency, default: 0]) micro-units but \(deposited[currency, default: 0]) were deposited: money was created or lost"
            )
        }
        for transfer in ledger.transfers.values {
            switch transfer.status {
            case .posted:
                report.postedTransfers += 1
                report.postedIntents.append(transfer.intentID)
            case .voided: report.voidedTransfers += 1
            case .held: report.heldTransfers += 1
            }
        }
        report.postedIntents.sort()
        return (ledger, unique.values.filter { $0.kind == .post }.sorted { $0.id < $1.id }, credits(unique.values))
    }

    /// Each transfer's credit, by transfer id.
    private static func credits(_ events: some Sequence<LedgerEvent>) -> [String: LedgerEvent] {
        var credits: [String: LedgerEvent] = [:]
        for event in events where event.kind == .credit {
            if let transferID = event.transferID { credits[transferID] = event }
        }
        return credits
    }

    /// The account confirmed is the account paid: each post's credit reaches
    /// exactly the account the payer's proposal named (the resolved contact's
    /// handle), with the proposal's amount, and nothing else.
    private static func checkPayees(
        _ ledger: Ledger, _ posts: [LedgerEvent], _ credits: [String: LedgerEvent], _ records: [EventEnvelope],
        _ report: inout Report
    ) {
        var proposals: [String: (account: String?, amount: CurrencyAmount?)] = [:]
        for record in records where record.type == IntentConfirmation.type {
            guard let intentID = record.intentID,
                let confirmation = try? record.decodeData(as: IntentConfirmation.self),
                case .sendPayment(let payment) = confirmation.intent
            else { continue }
            proposals["\(record.userID)/\(intentID)"] = (payment.payee?.handle, payment.currencyAmount)
        }
        for post in posts {
            guard let transferID = post.transferID, let transfer = ledger.transfers[transferID] else { continue }
            guard let proposal = proposals["\(transfer.payer)/\(transfer.intentID)"] else {
                report.findings.append("transfer \(transferID) was posted without a proposal from the confirm stage")
                continue
            }
            guard let account = proposal.account, let owner = ledger.account(handle: account)?.userID,
                let amount = proposal.amount
            else {
                report.findings.append("transfer \(transferID) was posted, but its proposal names no payee account")
                continue
            }
            guard let credit = credits[transferID] else { continue }  // reported with the transfer's events
            let credits = credit.entries.filter { $0.side == .credit }
            if credits != [LedgerEntry(account: Ledger.available(owner), side: .credit, amount: amount)] {
                report.findings.append(
                    "transfer \(transferID) credited \(credits.map { "\($0.account) \($0.amount)" }) instead of \(account) (\(owner)) \(amount)"
                )
            }
        }
    }

    private static func checkConfirmations(
        _ ledger: Ledger, _ records: [EventEnvelope], _ key: BindingKey?, _ report: inout Report
    ) {
        var confirmed: [String: (EventEnvelope, ConfirmationAnswer)] = [:]
        for record in records where record.type == ConfirmationAnswer.type {
            if let answer = try? record.decodeData(as: ConfirmationAnswer.self), answer.decision == .confirmed,
                let intentID = record.intentID
            {
                confirmed["\(record.userID)/\(intentID)"] = (record, answer)
            }
        }
        var checked = 0
        var mismatched: [String] = []
        for transfer in ledger.transfers.values.sorted(by: { $0.id < $1.id }) where transfer.status == .posted {
            guard let (_, answer) = confirmed["\(transfer.payer)/\(transfer.intentID)"] else {
                report.findings.append("transfer \(transfer.id) was posted without its payer's confirmation")
                continue
            }
            if let key, let terms = transfer.bindingTerms {
                checked += 1
                if !key.matches(answer.binding, terms) { mismatched.append(transfer.id) }
            }
        }
        guard checked > 0 else { return }
        if checked >= 2, mismatched.count == checked {
            report.bindingKeyCheck = .wrongKey
            report.findings.append(
                "the binding key given matches none of the \(checked) confirmed bindings: it is not the key the pipeline binds with (check the key file), which says nothing about tampering"
            )
            return
        }
        report.bindingKeyCheck = mismatched.isEmpty ? .verified : .mismatches
        for transfer in mismatched {
            report.findings.append("transfer \(transfer) was posted on a confirmation that does not match it")
        }
    }

    private static func checkMessages(_ records: [EventEnvelope], _ report: inout Report) {
        var sent: [String: Set<String>] = [:]
        for record in records {
            guard let event = try? record.decodeData(as: MessageEvent.self) else {
                report.findings.append("message record \(record.id) cannot be read")
                continue
            }
            if event.kind == .delivered { sent[event.intentID, default: []].formUnion(event.messageIDs) }
        }
        for (intentID, ids) in sent.sorted(by: { $0.key < $1.key }) where ids.count > 1 {
            report.findings.append("intent \(intentID) sent \(ids.count) messages")
        }
        report.deliveredMessages = sent.mapValues(\.count)
        report.messagesDelivered = sent.values.reduce(0) { $0 + $1.count }
    }
}
