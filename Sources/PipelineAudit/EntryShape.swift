import Intents
import Payments

/// The entries each kind of ledger event must have, derived from the event and
/// its transfer's hold alone, without `Ledger.apply`: an auditor's own reading of
/// the double-entry rules, so a ledger that accepted a wrong event (a hold into
/// someone else's account, a post of another amount) is still caught.
enum EntryShape {
    /// Why `event`'s entries are not the ones its kind allows, or nil when they are.
    static func violation(of event: LedgerEvent, hold: TransferLeg?) -> String? {
        let expected: [LedgerEntry]
        switch event.kind {
        case .deposit:
            guard let amount = event.amount else { return "deposit without an amount" }
            expected = LedgerEntry.move(amount, from: Ledger.funding, to: Ledger.available(event.userID))
        case .hold:
            guard let amount = event.amount else { return "hold without an amount" }
            expected = LedgerEntry.move(amount, from: Ledger.available(event.userID), to: Ledger.held(event.userID))
        case .post, .void:
            guard let hold, let amount = hold.amount else {
                return "\(event.kind.rawValue) of a transfer without a hold"
            }
            let receiver = event.kind == .post ? Ledger.clearing : Ledger.available(hold.userID)
            expected = LedgerEntry.move(amount, from: Ledger.held(hold.userID), to: receiver)
        case .credit:
            // Its payee and amount are checked against the transfer's hold once the whole ledger
            // is read (the hold is on the payer's partition, read side by side with this one).
            guard let amount = event.amount else { return "credit without an amount" }
            expected = LedgerEntry.move(amount, from: Ledger.clearing, to: Ledger.available(event.userID))
        case .accountOpened, .accountClosed, .requestProposed, .requestCreated, .requestReceived, .requestDeclined,
            .requestPaid, .proposalClosed, .ownerClaimed:
            expected = []
        }
        guard LedgerEntry.same(event.entries, as: expected) else {
            let written = event.entries.map { "\($0.side.rawValue) \($0.account) \($0.amount)" }
            return "\(event.kind.rawValue) moves \(written) instead of what a \(event.kind.rawValue) may move"
        }
        return nil
    }
}
