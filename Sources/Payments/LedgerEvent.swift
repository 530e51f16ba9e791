public import IntentEvents
public import Intents

/// One entry of a double-entry transaction: an amount debited from or
/// credited to one account. Every transaction's debits equal its credits.
public struct LedgerEntry: Codable, Sendable, Hashable {
    public enum Side: String, Codable, Sendable, Hashable { case debit, credit }

    /// `users/<id>/available`, `users/<id>/held`, or `external/funding`.
    public var account: String
    public var side: Side
    public var amount: CurrencyAmount

    public init(account: String, side: Side, amount: CurrencyAmount) {
        self.account = account
        self.side = side
        self.amount = amount
    }

    /// The two entries of moving `amount` from one account to another: a debit of
    /// `source`, a credit of `destination`. Every movement the ledger knows is one of these.
    public static func move(_ amount: CurrencyAmount, from source: String, to destination: String) -> [LedgerEntry] {
        [
            LedgerEntry(account: source, side: .debit, amount: amount),
            LedgerEntry(account: destination, side: .credit, amount: amount),
        ]
    }

    /// Whether two lists hold the same entries in any order (as many, and each of one in the
    /// other): what comparing them as sets meant, without hashing two sets per event (a
    /// ledger event has two entries or none, and every audit and replay checks each).
    public static func same(_ entries: [LedgerEntry], as expected: [LedgerEntry]) -> Bool {
        entries.count == expected.count && expected.allSatisfy(entries.contains)
            && entries.allSatisfy(expected.contains)
    }
}

/// What the payments worker appends to the ledger topic: its whole state,
/// replayable. Money moves only in `deposit`, `hold`, `void`, `post` and `credit`,
/// each a balanced set of entries; the others record accounts, proposals and
/// payment requests.
public struct LedgerEvent: Codable, Sendable, Hashable {
    public static let type = "ledger.event.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:ledger.event:v1"

    public enum Kind: String, Codable, Sendable, Hashable {
        /// A user's account exists (with the handles payers know it by), at a version
        /// (``LedgerEvent/accountVersion``): a later version replaces it.
        case accountOpened
        /// A user's account is closed at a version: its handles are released (another
        /// account may open with them) and no one can pay it. Written by the ledger
        /// operator (`intentctl ledger close-account`), only when its balances are zero.
        case accountClosed
        /// Money arrives from outside (top-up, opening balance).
        case deposit
        /// A payment's amount is reserved at confirm: available → held.
        case hold
        /// A held amount is released (declined, mismatched, expired): held → available.
        case void
        /// A confirmed payment leaves the payer: payer's held → clearing (on the payer's partition).
        case post
        /// A posted payment reaches the payee: clearing → payee's available (on the payee's
        /// partition, written by its owner when the post's effect arrives).
        case credit
        /// A payment request waits for the user's confirmation.
        case requestProposed
        /// A confirmed payment request is pending for the payer.
        case requestCreated
        /// The payer's side of a created request (on the payer's partition), so the payer's
        /// member can check a payment or a decline of it.
        case requestReceived
        /// The payer declined a pending request.
        case requestDeclined
        /// The payer paid a pending request (with the transfer in `transferID`).
        case requestPaid
        /// A proposal ended without moving money (declined, mismatched, expired, refused).
        case proposalClosed
        /// A payments member took over this partition (``LedgerOwner``): from here on only
        /// events stamped with this claim are applied. Keyed by a key of the partition, not a user.
        case ownerClaimed
    }

    /// Unique per event; derived from the transfer or request and the kind,
    /// so writing it twice is detected on replay.
    public var id: String
    public var kind: Kind
    /// The user whose worker wrote it (the partition key).
    public var userID: String
    public var intentID: String?
    /// For hold, void and post; derived from the intent id.
    public var transferID: String?
    /// For payment requests.
    public var requestID: String?
    public var entries: [LedgerEntry]
    /// The other side: payee of a transfer, payer of a request.
    public var counterpartyUserID: String?
    public var counterpartyContactID: String?
    /// hold, requestProposed: the account (handle) the user's confirmation is bound
    /// to, the resolved contact's: credited by the payment, asked to pay by the request.
    public var counterpartyAccount: String?
    public var amount: CurrencyAmount?
    public var note: String?
    /// Until when the user may confirm (hold, requestProposed).
    public var expiresAt: Timestamp?
    /// accountOpened: handles (phone, e-mail) others reach this account by.
    public var handles: [String]?
    /// accountOpened: false when the user's payment credentials are not verified.
    public var verified: Bool?
    /// accountOpened, accountClosed: the user's account version, signed with the event.
    /// It only grows per user: every reader of accounts ignores an opening or closing at
    /// a version it has already passed, so a captured old record replayed changes nothing
    /// (``AccountDirectory``).
    public var accountVersion: Int?
    /// proposalClosed, void: why.
    public var reason: String?
    /// post, void, proposalClosed, requestCreated: the event that decided (the
    /// user's answer, an expiry, a refused proposal). Its redelivery is answered
    /// again with the same response; any other event finds the intent decided.
    public var decidedBy: String?
    /// With `decidedBy`: that event's time, which its repeated response carries.
    public var decidedAt: Timestamp?
    /// hold, requestProposed: the voice service that asked (``RequestSource``); only its
    /// answer decides. Nil on events written before it existed.
    public var requestSource: String?
    /// Written by the payments worker: the claim it writes this partition under
    /// (``LedgerOwner``, `PARTITION/EPOCH/MEMBER`); ownerClaimed: the claim made. Nil on
    /// the ledger operator's events and on events written before claims existed.
    public var owner: String?

    public init(
        id: String, kind: Kind, userID: String, intentID: String? = nil, transferID: String? = nil,
        requestID: String? = nil, entries: [LedgerEntry] = [], counterpartyUserID: String? = nil,
        counterpartyContactID: String? = nil, counterpartyAccount: String? = nil, amount: CurrencyAmount? = nil,
        note: String? = nil, expiresAt: Timestamp? = nil, handles: [String]? = nil, verified: Bool? = nil,
        accountVersion: Int? = nil, reason: String? = nil, decidedBy: String? = nil, decidedAt: Timestamp? = nil,
        requestSource: String? = nil
    ) {
        self.requestSource = requestSource
        self.id = id
        self.kind = kind
        self.userID = userID
        self.intentID = intentID
        self.transferID = transferID
        self.requestID = requestID
        self.entries = entries
        self.counterpartyUserID = counterpartyUserID
        self.counterpartyContactID = counterpartyContactID
        self.counterpartyAccount = counterpartyAccount
        self.amount = amount
        self.note = note
        self.expiresAt = expiresAt
        self.handles = handles
        self.verified = verified
        self.accountVersion = accountVersion
        self.reason = reason
        self.decidedBy = decidedBy
        self.decidedAt = decidedAt
    }
}
