import Foundation
public import IntentEvents
public import Intents
import Messaging
public import Payments

/// ``PipelineAudit`` fed one record at a time, as the topics are read: it keeps
/// what the rules need (per intent its final responses, per transfer what
/// happened to it, per account its sum), never the records. An audit of a long
/// history then costs memory in proportion to the intents and accounts, and no
/// time building and freeing arrays of events (which was a fifth of it).
///
/// Feed each topic in partition order (a transfer's hold, post and void share
/// the payer's partition); topics may come in any order. ``report(bindingKey:)``
/// applies the rules that need everything read.
public struct StreamingAudit: Sendable {
    private var responses = ResponseRules()
    private var ledger = LedgerRules()
    private var confirmations = ConfirmationRecords()
    private var messages = MessageRules()
    private var resolved = ResolvedPayments()
    /// The accounts topic's openings and closings under the directory's rules, in its one
    /// order (nil until one is read: then the ledger topic's openings are used).
    private var accounts: AccountDirectory?
    /// Transfers whose credit the payee's member refused (dead-lettered).
    private var creditsRefused: Set<String> = []

    public init() {}

    /// The ledger as the audit replayed it from what was read (events under an overtaken
    /// claim and second writes of an id left out): for a caller that compares a projection's
    /// balances with the ledger's without replaying the ledger a second time.
    public var replayedLedger: Ledger { ledger.ledger }

    public mutating func response(_ event: EventEnvelope) {
        responses.read(event, try? event.decodeData(as: IntentResponse.self))
    }

    /// ``response(_:)`` for a reader that decoded the response already (nil: it cannot be
    /// read), so a caller checking more than the audit decodes each response once.
    public mutating func response(_ event: EventEnvelope, decoded: IntentResponse?) {
        responses.read(event, decoded)
    }

    public mutating func ledgerRecord(_ record: EventEnvelope) {
        ledger.read(record, try? LedgerEvent.decode(from: record))
    }

    /// ``ledgerRecord(_:)`` for a reader that decoded the event already (nil: it cannot be read).
    public mutating func ledgerRecord(_ record: EventEnvelope, decoded: LedgerEvent?) { ledger.read(record, decoded) }

    public mutating func confirmation(_ record: EventEnvelope) { confirmations.read(record) }

    public mutating func message(_ record: EventEnvelope) { messages.read(record) }

    /// A record of the resolved intents topic: a posted payment's proposal must then be one
    /// of its intent's resolutions (``resolvedIntentsRead(complete:)`` says the topic was read).
    public mutating func resolvedIntent(_ record: EventEnvelope) { resolved.read(record) }

    /// Says the resolved intents topic was read (without it, no proposal is held to them), and
    /// whether the reader knows it read every resolution (`complete`, as the simulation does):
    /// then a posted payment whose intent has none is a finding. A reader of a topic that
    /// retention trims (`intentctl audit`) says false: then only a payment proposed a day or
    /// more after the oldest resolution it read is.
    public mutating func resolvedIntentsRead(complete: Bool) { resolved.complete = complete }

    /// A record of the accounts topic (an opening or closing), in the topic's order.
    public mutating func accountRecord(_ record: EventEnvelope) {
        accountRecord(decoded: try? LedgerEvent.decode(from: record))
    }

    /// ``accountRecord(_:)`` for a reader that decoded the event already (nil: it cannot be read).
    public mutating func accountRecord(decoded event: LedgerEvent?) {
        guard let event else { return }
        accounts = accounts ?? AccountDirectory()
        accounts?.apply(event)
    }

    /// A dead-letter record (the original event): tells a credit still on its way
    /// from one its payee's member refused.
    public mutating func deadLetter(_ record: EventEnvelope) {
        if let transferID = ConfirmationRecords.creditTransfer(record) { creditsRefused.insert(transferID) }
    }

    /// Every rule over what was read; with a `creditDeadline`, a credit on its way past it
    /// is a finding too.
    public func report(bindingKey: BindingKey? = nil, creditDeadline: CreditDeadline? = nil) -> PipelineAudit.Report {
        var report = PipelineAudit.Report()
        responses.finish(&report)
        ledger.finish(sent: confirmations.creditsSent, refused: creditsRefused, deadline: creditDeadline, &report)
        confirmations.checkConfirmed(ledger.ledger, bindingKey, &report)
        report.findings += resolved.refused
        confirmations.checkPayees(
            ledger, accounts: accounts ?? ledger.ledger.directory, resolved: resolved, &report)
        messages.finish(&report)
        return report
    }
}

/// One final response per intent, with one code.
private struct ResponseRules: Sendable {
    var finals: [String: [(id: String, code: ResponseCode)]] = [:]
    var seen: Set<String> = []
    var findings: [String] = []

    mutating func read(_ event: EventEnvelope, _ response: IntentResponse?) {
        guard let intentID = event.intentID, let response else {
            findings.append("response \(event.id) cannot be read")
            return
        }
        seen.insert(intentID)
        if response.code.isFinal { finals[intentID, default: []].append((event.id, response.code)) }
    }

    func finish(_ report: inout PipelineAudit.Report) {
        report.findings += findings
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
}

/// An account's balance in one currency, as the auditor sums it.
private struct AccountCurrency: Hashable, Sendable {
    var account: String
    var currency: String

    var description: String { "\(account) \(currency)" }
}

/// What a transfer's later checks read of one of its events: who, to whom, how much,
/// and the entries. A trail keeps these, not whole events: moving whole events as the
/// table of transfers grew was a twentieth of an audit.
struct TransferLeg: Sendable {
    var userID: String
    var counterpartyUserID: String?
    var amount: CurrencyAmount?
    var entries: [LedgerEntry]

    init(_ event: LedgerEvent) {
        userID = event.userID
        counterpartyUserID = event.counterpartyUserID
        amount = event.amount
        entries = event.entries
    }
}

/// What happened to one transfer, in ledger order.
private struct TransferTrail: Sendable {
    var kinds: [LedgerEvent.Kind] = []
    /// Its hold (the payer, payee and amount every later event must agree with).
    var hold: TransferLeg?
    var credit: TransferLeg?
    /// The id of its post, when posted.
    var postID: String?
    /// When it was posted (its post's record time).
    var postedAt: Timestamp?

    /// Records `event`; returns the transfer's hold as it stands after it (one table lookup
    /// for both, by the caller).
    @discardableResult
    mutating func record(_ event: LedgerEvent, at time: Date) -> TransferLeg? {
        kinds.append(event.kind)
        switch event.kind {
        case .hold: hold = TransferLeg(event)
        case .credit: credit = TransferLeg(event)
        case .post:
            postID = event.id
            postedAt = Timestamp(time)
        default: break
        }
        return hold
    }
}

/// Every ledger event once, each in the shape its kind allows; balances the sums
/// of their entries and never negative; money neither created nor lost; every
/// transfer held once, ended at most once, and credited to the payee its hold names.
private struct LedgerRules: Sendable {
    /// Each event id's contents, as a hash: a second write with other contents is a finding.
    private var written: [String: Int] = [:]
    private(set) var trails: [String: TransferTrail] = [:]
    private var sums: [AccountCurrency: Int64] = [:]
    private var deposited: [String: Int64] = [:]
    private(set) var ledger = Ledger()
    private var findings: [String] = []
    /// The partitions' claims (``LedgerOwnership``), read before anything else: an event
    /// written under an overtaken claim (a stalled member's) counts for nothing, and its id
    /// may be written again by the partition's owner.
    private var ownership = LedgerOwnership()
    private var fenced: [String] = []
    private var requests = RequestRules()

    mutating func read(_ record: EventEnvelope, _ event: LedgerEvent?) {
        guard let event else {
            findings.append("ledger record \(record.id) cannot be read")
            return
        }
        // What no ledger reader applies counts for nothing here either, and is a finding: an
        // event from a source that may not write the ledger (signed or not), of a kind its
        // writer may not write, or keyed to another user (``LedgerRecord``'s rules, which the
        // signature check does not cover: that is ``RecordIntegrity``'s, given the keys).
        if let refusal = Self.refusal(of: event, in: record) {
            findings.append("ledger record \(record.id) is one no reader applies: \(refusal)")
            return
        }
        if let refusal = ownership.admit(event) {
            fenced.append("\(event.id): \(refusal)")
            return
        }
        // Hashed with this process's random seed: contents that differ cannot be made to collide.
        let contents = event.hashValue
        // One lookup for the usual case, a first write (the first contents stay).
        if let earlier = written.updateValue(contents, forKey: event.id) {
            written[event.id] = earlier
            if earlier != contents {
                findings.append("ledger event \(event.id) was written twice with different contents")
            }
            return
        }
        let hold = event.transferID.flatMap { trails[$0, default: TransferTrail()].record(event, at: record.time) }
        requests.read(event)
        // The auditor's own rules and sums first, from the raw entries: independent of Ledger.apply.
        if let violation = EntryShape.violation(of: event, hold: event.kind == .credit ? nil : hold) {
            findings.append("ledger event \(event.id): \(violation)")
        }
        for entry in event.entries {
            let key = AccountCurrency(account: entry.account, currency: entry.amount.currency)
            let micros = Money(entry.amount).micros
            if Self.add(entry.side == .credit ? micros : -micros, to: &sums[key, default: 0]) {
                findings.append("\(key.description) overflows")
            }
        }
        if event.kind == .deposit, let amount = event.amount {
            deposited[amount.currency, default: 0] &+= Money(amount).micros
        }
        do throws(Ledger.ApplyError) {
            try ledger.apply(event, checkingBalances: false)
        } catch {
            findings.append("ledger event \(event.id) breaks the ledger: \(error)")
        }
    }

    /// Why every ledger reader refuses `event` for who wrote it, or nil.
    static func refusal(of event: LedgerEvent, in record: EventEnvelope) -> String? {
        guard LedgerRecord.writers.admits(record.source) else {
            return "\(record.source) may not write the ledger"
        }
        do throws(EventDecodingError) {
            try LedgerRecord.checkWriter(record.source, of: event)
        } catch {
            return error.message
        }
        return event.userID == record.userID ? nil : "keyed by \(record.userID), for \(event.userID)"
    }

    /// Adds in place (one lookup of a sum in its table); true when it overflowed.
    private static func add(_ delta: Int64, to sum: inout Int64) -> Bool {
        let (result, overflow) = sum.addingReportingOverflow(delta)
        sum = result
        return overflow
    }

    /// `sent`: transfers whose credit is on the confirmations topic (on its way to the
    /// payee's member); `refused`: those whose credit that member dead-lettered; `deadline`:
    /// how long a credit may be on its way (nil: any time).
    func finish(
        sent creditsSent: Set<String>, refused creditsRefused: Set<String>, deadline: CreditDeadline?,
        _ report: inout PipelineAudit.Report
    ) {
        report.findings += findings
        report.fencedWrites = fenced.sorted()
        var inTransit: [String: Int64] = [:]
        // Unsorted (sorting every transfer was most of this): the findings are sorted by transfer.
        var byTransfer: [(key: String, finding: String)] = []
        for (transferID, trail) in trails {
            let kinds = trail.kinds
            let holds = kinds.count { $0 == .hold }
            let ends = kinds.count { $0 == .post || $0 == .void }
            let posts = kinds.count { $0 == .post }
            let credits = kinds.count { $0 == .credit }
            // Posted, its credit sent and not yet recorded: on its way, not lost, unless the
            // payee's member refused it (dead-lettered): then the money is stuck in clearing.
            let uncredited = posts == 1 && credits == 0
            if uncredited && creditsRefused.contains(transferID) {
                byTransfer.append(
                    (
                        transferID,
                        "transfer \(transferID): its credit was dead-lettered by the payee's member; the money is in clearing"
                    ))
            }
            let travelling = uncredited && creditsSent.contains(transferID) && !creditsRefused.contains(transferID)
            if travelling, let amount = trail.hold?.amount {
                report.creditsInTransit += 1
                inTransit[amount.currency, default: 0] &+= Money(amount).micros
            }
            if travelling, let deadline, let postedAt = trail.postedAt, deadline.isOverdue(postedAt: postedAt) {
                byTransfer.append(
                    (
                        transferID,
                        "transfer \(transferID): its credit has been on its way to the payee's member since \(postedAt) (as of \(deadline.asOf), longer than \(deadline.limitDescription)): the money waits in clearing; is that member's group committed past it?"
                    ))
            }
            if holds != 1 || ends > 1 || (credits != posts && !travelling) {
                byTransfer.append((transferID, "transfer \(transferID): \(kinds.map(\.rawValue).sorted())"))
            }
            // The credit reaches exactly the payee the hold named, with the held amount.
            if let hold = trail.hold, let credit = trail.credit,
                credit.userID != hold.counterpartyUserID || credit.amount != hold.amount
            {
                byTransfer.append(
                    (
                        transferID,
                        "transfer \(transferID) credited \(credit.userID) \(credit.amount.map(\.description) ?? "nothing") but its hold names \(hold.counterpartyUserID ?? "nobody") \(hold.amount.map(\.description) ?? "nothing")"
                    ))
            }
        }
        report.findings += inKeyOrder(byTransfer)
        report.findings += inKeyOrder(
            requests.findings(
                posted: { trails[$0].flatMap { $0.postID == nil ? nil : $0.hold } },
                request: { ledger.requests[$0] }))
        let accounts = sums.sorted { ($0.key.account, $0.key.currency) < ($1.key.account, $1.key.currency) }
        // Posted money waits in clearing until its payee's member credits it: only the credits
        // on their way may be there.
        for (key, micros) in accounts where key.account.hasPrefix(Ledger.clearing) {
            if micros != inTransit[key.currency, default: 0] {
                report.findings.append(
                    "\(key.description) holds \(micros) micro-units posted but never credited to a payee (\(inTransit[key.currency, default: 0]) on their way)"
                )
            }
        }
        // Balances from the raw entries (the auditor's), compared with the ledger's own.
        for (account, money) in ledger.allBalances
        where money.micros != sums[AccountCurrency(account: account, currency: money.currency)] ?? 0 {
            report.findings.append("\(account) \(money.currency) is not the sum of its entries")
        }
        for (key, micros) in accounts where key.account.hasPrefix("users/") && micros < 0 {
            report.findings.append("\(key.description) is negative (\(micros) micro-units)")
        }
        // Money enters only by deposits: what users hold, per currency, is what was deposited.
        var held: [String: Int64] = [:]
        for (key, micros) in accounts where key.account.hasPrefix("users/") {
            held[key.currency, default: 0] &+= micros
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
    }
}

/// Findings keyed by what they are about, in that key's order (several for one key keep
/// theirs): the rules walk transfers unsorted, since a history's findings are few and its
/// transfers many.
private func inKeyOrder(_ keyed: [(key: String, finding: String)]) -> [String] {
    keyed.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element.finding)
}

/// What the confirm stage proposed and what payers answered, by `user/intent`;
/// and which transfers' credits are on their way to the payee's member.
private struct ConfirmationRecords: Sendable {
    private var confirmed: [String: ConfirmationBinding] = [:]
    private var proposals: [String: (terms: ResolvedPayments.Terms, time: Date)] = [:]
    private(set) var creditsSent: Set<String> = []
    /// Records of a kind from a source that may not write it (in the order read).
    private var refused: [String] = []

    /// How proposals and answers are found for a transfer: its payer and intent.
    private static func key(_ userID: String, _ intentID: String) -> String { "\(userID)/\(intentID)" }

    /// The transfer whose credit effect `record` is, if it is one.
    static func creditTransfer(_ record: EventEnvelope) -> String? {
        guard record.type == LedgerEvent.type, let event = try? LedgerEvent.decode(from: record),
            event.kind == .credit
        else { return nil }
        return event.transferID
    }

    /// The binding a confirmed answer echoes, read from its JSON tree (`decision`,
    /// `binding.digest`, `binding.expiresAt`) as ``ResolvedPayments/terms(_:)`` reads proposals;
    /// nil for a declined answer or one of another shape.
    static func confirmedBinding(_ data: JSONValue) -> ConfirmationBinding? {
        guard let answer = data.objectValue,
            answer["decision"]?.stringValue == ConfirmationAnswer.Decision.confirmed.rawValue,
            let binding = answer["binding"]?.objectValue, let digest = binding["digest"]?.stringValue,
            let expiry = binding["expiresAt"]?.stringValue.flatMap(EventTime.parse)
        else { return nil }
        return ConfirmationBinding(digest: digest, expiresAt: Timestamp(expiry))
    }

    mutating func read(_ record: EventEnvelope) {
        // Each kind counts only from the source the payments stage takes it from (credits from
        // the payments stage, answers from a voice service, proposals from the confirm stage):
        // a record it refuses must not stand in for the one it acted on.
        switch record.type {
        case LedgerEvent.type:
            guard admitted(record, .only(PipelineSource.payments), "a credit") else { return }
            if let transferID = Self.creditTransfer(record) { creditsSent.insert(transferID) }
        case ConfirmationAnswer.type:
            guard admitted(record, PipelineSource.voice, "an answer") else { return }
            if let intentID = record.intentID, let binding = Self.confirmedBinding(record.data) {
                confirmed[Self.key(record.userID, intentID)] = binding
            }
        case IntentConfirmation.type:
            guard admitted(record, .only(PipelineSource.confirm), "a proposal") else { return }
            guard let intentID = record.intentID, let proposal = ResolvedPayments.terms(record.data) else { return }
            proposals[Self.key(record.userID, intentID)] = (proposal, record.time)
        default: break
        }
    }

    /// Whether `record` is from one of `producers`; if not, a finding.
    private mutating func admitted(_ record: EventEnvelope, _ producers: Producers, _ what: String) -> Bool {
        guard !producers.admits(record.source) else { return true }
        refused.append(
            "confirmation record \(record.id) is \(what) from \(record.source), which the payments stage refuses")
        return false
    }

    /// Every posted transfer confirmed by its payer, the binding matching when the key is given.
    /// One binding that does not match is a confirmation tampered with; none of several
    /// matching is the auditor holding another key, which says nothing about the payments.
    func checkConfirmed(_ ledger: Ledger, _ key: BindingKey?, _ report: inout PipelineAudit.Report) {
        report.findings += refused
        var checked = 0
        var mismatched: [String] = []
        var unconfirmed: [(key: String, finding: String)] = []
        for transfer in ledger.transfers.values where transfer.status == .posted {
            guard let binding = confirmed[Self.key(transfer.payer, transfer.intentID)] else {
                unconfirmed.append(
                    (transfer.id, "transfer \(transfer.id) was posted without its payer's confirmation"))
                continue
            }
            if let key, let terms = transfer.bindingTerms {
                checked += 1
                if !key.matches(binding, terms) { mismatched.append(transfer.id) }
            }
        }
        report.findings += inKeyOrder(unconfirmed)
        mismatched.sort()
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

    /// The account confirmed is the account paid: each post's credit reaches exactly the
    /// account the payer's proposal named (the resolved contact's handle), with the
    /// proposal's amount, and nothing else. The handle's owner is one who held it (as
    /// `accounts` saw it): it may have been released since the payment.
    func checkPayees(
        _ rules: LedgerRules, accounts: AccountDirectory, resolved: ResolvedPayments,
        _ report: inout PipelineAudit.Report
    ) {
        let ledger = rules.ledger
        // By post id, as the findings are ordered.
        var byPost: [(key: String, finding: String)] = []
        for (transferID, trail) in rules.trails {
            guard let postID = trail.postID, let transfer = ledger.transfers[transferID] else { continue }
            guard let (proposal, proposedAt) = proposals[Self.key(transfer.payer, transfer.intentID)] else {
                byPost.append((postID, "transfer \(transferID) was posted without a proposal from the confirm stage"))
                continue
            }
            guard let account = proposal.account, let amount = proposal.amount else {
                byPost.append((postID, "transfer \(transferID) was posted, but its proposal names no payee account"))
                continue
            }
            if let finding = resolved.finding(
                transferID: transferID, payer: transfer.payer, intentID: transfer.intentID, proposed: proposal,
                proposedAt: proposedAt)
            {
                byPost.append((postID, finding))
            }
            let owner = transfer.payee
            guard accounts.hasHeld(account, owner) else {
                let holder = accounts.account(handle: account)?.userID ?? "no account"
                byPost.append(
                    (
                        postID,
                        "transfer \(transferID) pays \(owner) instead of \(account) (\(holder)): \(owner) never held that handle"
                    ))
                continue
            }
            guard let credit = trail.credit else { continue }  // reported with the transfer's events
            let credits = credit.entries.filter { $0.side == .credit }
            if credits.count != 1 || credits[0].amount != amount || credits[0].account != Ledger.available(owner) {
                byPost.append(
                    (
                        postID,
                        "transfer \(transferID) credited \(credits.map { "\($0.account) \($0.amount)" }) instead of \(account) (\(owner)) \(amount)"
                    ))
            }
        }
        report.findings += inKeyOrder(byPost)
    }
}

/// Every message sent once.
private struct MessageRules: Sendable {
    var sent: [String: Set<String>] = [:]
    var findings: [String] = []

    mutating func read(_ record: EventEnvelope) {
        guard let event = try? record.decodeData(as: MessageEvent.self) else {
            findings.append("message record \(record.id) cannot be read")
            return
        }
        if event.kind == .delivered { sent[event.intentID, default: []].formUnion(event.messageIDs) }
    }

    func finish(_ report: inout PipelineAudit.Report) {
        report.findings += findings
        for (intentID, ids) in sent.sorted(by: { $0.key < $1.key }) where ids.count > 1 {
            report.findings.append("intent \(intentID) sent \(ids.count) messages")
        }
        report.deliveredMessages = sent.mapValues(\.count)
        report.messagesDelivered = sent.values.reduce(0) { $0 + $1.count }
    }
}
