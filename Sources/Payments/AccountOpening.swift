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

    /// Opening a payment account with opening deposits. Ids derive from the
    /// user (and each deposit's currency), so opening the same account twice
    /// changes nothing.
    public static func opening(
        userID: String, handles: [String], verified: Bool = true, deposits: [CurrencyAmount] = []
    ) -> [LedgerEvent] {
        [
            LedgerEvent(
                id: EventID.derived("ledger", "accountOpened", userID), kind: .accountOpened, userID: userID,
                handles: handles, verified: verified)
        ]
            + deposits.map {
                deposit(
                    id: EventID.derived("ledger", "opening-deposit", userID, $0.currency), userID: userID, amount: $0)
            }
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
