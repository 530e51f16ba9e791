public import Foundation
public import IntentEvents
public import Intents

extension LedgerEvent {
    /// Money arriving from outside into a user's available balance.
    public static func deposit(id: String, userID: String, amount: CurrencyAmount) -> LedgerEvent {
        LedgerEvent(
            id: id, kind: .deposit, userID: userID,
            entries: LedgerEntry.move(amount, from: Ledger.funding, to: Ledger.available(userID)), amount: amount)
    }

    /// The one door money enters by (`intentctl ledger deposit`): a deposit whose id
    /// derives from the operator's idempotency id alone, so the same deposit sent twice
    /// is one event (every ledger remembers ids), and the same id reused for another
    /// user or amount is one id with two contents, which the CLI refuses and the audit
    /// reports.
    public static func deposit(idempotencyID: String, userID: String, amount: CurrencyAmount) -> LedgerEvent {
        deposit(id: depositID(idempotencyID), userID: userID, amount: amount)
    }

    /// The ledger event id of the deposit with this idempotency id.
    public static func depositID(_ idempotencyID: String) -> String {
        EventID.derived("ledger", "deposit", idempotencyID)
    }

    /// Opening a payment account at an account version (the first is 1; a re-opening
    /// with other handles is the next), with opening deposits through the same door as
    /// any deposit, each with an idempotency id derived from the opening and currency.
    /// Ids derive from the user and the version, so the same opening twice is one event.
    public static func opening(
        userID: String, handles: [String], verified: Bool = true, version: Int = 1, deposits: [CurrencyAmount] = []
    ) -> [LedgerEvent] {
        [
            LedgerEvent(
                id: EventID.derived("ledger", "accountOpened", userID, String(version)), kind: .accountOpened,
                userID: userID, handles: handles, verified: verified, accountVersion: version)
        ]
            + deposits.map {
                deposit(
                    idempotencyID: openingDepositID(userID: userID, version: version, currency: $0.currency),
                    userID: userID, amount: $0)
            }
    }

    /// The idempotency id of an opening deposit: one per opening and currency.
    public static func openingDepositID(userID: String, version: Int, currency: String) -> String {
        "opening/\(userID)/\(version)/\(currency)"
    }

    /// Closing a payment account at an account version: its handles are released.
    public static func closing(userID: String, version: Int) -> LedgerEvent {
        LedgerEvent(
            id: EventID.derived("ledger", "accountClosed", userID, String(version)), kind: .accountClosed,
            userID: userID, accountVersion: version)
    }

    /// The event as the ledger topic carries it: keyed by its user, whose
    /// partition holds that user's state, its id the event's own.
    public func envelope(
        source: String, time: Date, conversationID: String = "ledger", causationID: String? = nil
    ) -> EventEnvelope {
        EventEnvelope(
            id: id, source: source, type: Self.type, time: time, subject: transferID ?? requestID,
            dataSchema: Self.dataSchema, userID: userID, conversationID: conversationID,
            intentID: intentID, causationID: causationID, payload: self)
    }
}
