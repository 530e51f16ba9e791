import Intents
import Payments

/// A transfer as the payments stage records it once paid: the payer's hold of `amount` for
/// `payee` (at `account`), its post into clearing, and the payee's credit out of it, with
/// the ids the audit tests name (`hold-ID`, `post-ID`, `credit-ID`, transfer `t-ID`).
func paidTransfer(
    _ intentID: String, from payer: String, to payee: String, account: String, amount: CurrencyAmount
) -> (hold: LedgerEvent, post: LedgerEvent, credit: LedgerEvent) {
    let transferID = "t-\(intentID)"
    return (
        LedgerEvent(
            id: "hold-\(intentID)", kind: .hold, userID: payer, intentID: intentID, transferID: transferID,
            entries: LedgerEntry.move(amount, from: Ledger.available(payer), to: Ledger.held(payer)),
            counterpartyUserID: payee, counterpartyAccount: account, amount: amount),
        LedgerEvent(
            id: "post-\(intentID)", kind: .post, userID: payer, intentID: intentID, transferID: transferID,
            entries: LedgerEntry.move(amount, from: Ledger.held(payer), to: Ledger.clearing),
            counterpartyUserID: payee),
        LedgerEvent(
            id: "credit-\(intentID)", kind: .credit, userID: payee, intentID: intentID, transferID: transferID,
            entries: LedgerEntry.move(amount, from: Ledger.clearing, to: Ledger.available(payee)),
            counterpartyUserID: payer, amount: amount)
    )
}
