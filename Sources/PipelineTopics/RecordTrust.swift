public import IntentEvents
public import Kafka

/// How a reader checks who wrote a record. A reader that acts on records (the payments
/// stage on the ledger, every stage on its input) checks their signatures, and so holds
/// the writers' keys. A reader whose view may be wrong without harm checks their view
/// signatures (``ViewKey``) and holds only view keys, which no acting reader trusts: the
/// app state, which only shows, and the confirm stage's ledger and accounts, which only
/// pre-check what the payments stage decides again from its own (SECURITY.md, attack 39).
public enum RecordTrust: Sendable {
    case signature
    case view

    /// The keyring to verify with, from the reader's keys.
    public func verifying(_ keys: EventAuthenticator) -> EventAuthenticator {
        switch self {
        case .signature: keys
        case .view: keys.viewing
        }
    }

    /// The signature this reader checks a record by.
    public func signature(of message: KafkaConsumerMessage) -> EventSignature? {
        switch self {
        case .signature: message.signature
        case .view: message.viewSignature
        }
    }
}
