import Foundation
import IntentEvents
import Intents

/// What the resolve stage resolved each payment to (`intent.resolved.v1`: the payee's
/// account and the amount), against which the audit holds the confirm stage's proposal of
/// every posted transfer.
///
/// Why: the proposal (and the question the user heard) come from the confirm stage alone,
/// and the payments stage checks the user's answer against the proposal's binding. A holder
/// of the confirm stage's key could therefore propose, and ask about, another payee or
/// amount than the user asked for, and the audit found the payment clean, since it
/// compared the post only with that proposal. The resolved intent is signed with another
/// key (the resolve stage's), from the user's own request: a proposal that is none of its
/// intent's resolutions is a finding.
struct ResolvedPayments: Sendable {
    /// A payment's terms as a stage wrote them: the payee's account (handle) and the amount.
    typealias Terms = (account: String?, amount: CurrencyAmount?)

    /// Per `user/intent`, each resolved send-payment's terms (several turns may resolve one).
    private var resolved: [String: [Terms]] = [:]
    /// Resolved records from a source the confirm stage does not take them from.
    private(set) var refused: [String] = []
    /// The earliest resolution read (its event time).
    private var oldest: Date?
    /// Nil until the resolved intents are read; then whether the reader knows it read all of
    /// them (``finding(transferID:payer:intentID:proposed:proposedAt:)`` says what follows).
    var complete: Bool?

    /// How long before its proposal an intent's resolution may have been written. Past the
    /// retention of the resolved topic (7 days by default; the ledger keeps everything), a
    /// proposal's resolution may be gone: a proposal made at least this long after the oldest
    /// resolution still kept must have its own.
    static let resolutionLead: TimeInterval = 86_400

    /// A send-payment's terms, read from a confirmation's or a resolution report's JSON tree
    /// (`intent.payee.handle`, `intent.currencyAmount`) rather than decoding the whole event,
    /// which was a twentieth of an audit. The record's signature, not its decoding, is what
    /// vouches for it; a field of the wrong shape is read as absent, so a post on it is a
    /// finding. Nil for an intent of any other kind.
    static func terms(_ data: JSONValue) -> Terms? {
        guard case .object(let intent)? = data.objectValue?["intent"], intent["kind"]?.stringValue == "sendPayment"
        else { return nil }
        let account = intent["payee"]?.objectValue?["handle"]?.stringValue
        return (account, intent["currencyAmount"].flatMap(CurrencyAmount.init(json:)))
    }

    mutating func read(_ record: EventEnvelope) {
        guard record.type == IntentResolutionReport.resolvedType else { return }
        guard record.source == PipelineSource.resolve else {
            refused.append(
                "resolved record \(record.id) is from \(record.source), which the confirm stage refuses")
            return
        }
        oldest = min(oldest ?? record.time, record.time)
        guard let intentID = record.intentID, let terms = Self.terms(record.data) else { return }
        resolved["\(record.userID)/\(intentID)", default: []].append(terms)
    }

    /// Why the proposal `proposed` of `payer`'s `intentID`, made at `proposedAt`, on which
    /// `transferID` was posted, is not what the resolve stage resolved; nil when it is one of
    /// its resolutions, or when the resolved intents were not read. A proposal with no
    /// resolution at all is a finding when the reader read them all (`complete`), or when it
    /// was made ``resolutionLead`` or more after the oldest resolution read (retention cannot
    /// have taken its own; a reader of a copy without the topic reads none, and finds none).
    func finding(transferID: String, payer: String, intentID: String, proposed: Terms, proposedAt: Date) -> String? {
        guard let complete else { return nil }
        guard let resolutions = resolved["\(payer)/\(intentID)"] else {
            let kept = complete || oldest.map { proposedAt >= $0.addingTimeInterval(Self.resolutionLead) } ?? false
            return kept ? "transfer \(transferID) was posted without a resolved intent from the resolve stage" : nil
        }
        if resolutions.contains(where: { $0.account == proposed.account && $0.amount == proposed.amount }) {
            return nil
        }
        let asked = resolutions.map { "\($0.account ?? "no account") \($0.amount.map(\.description) ?? "no amount")" }
        return
            "transfer \(transferID) was proposed to \(proposed.account ?? "no account") \(proposed.amount.map(\.description) ?? "no amount"), but the resolve stage resolved \(asked)"
    }
}
