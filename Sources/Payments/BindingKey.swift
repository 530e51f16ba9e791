import IntentCrypto
public import IntentEvents
public import Intents

/// The secret that makes confirmation bindings unforgeable: only the confirm
/// and payments workers, which hold it, can produce a digest the user's
/// answer will be checked against.
public struct BindingKey: Sendable {
    /// The key with its padded blocks hashed once: every payment proposal is bound and
    /// every answer checked with it, and setting the key up each time (two hash blocks
    /// and five allocations) was most of a binding's cost.
    private let mac: HMACKey

    public init(_ key: [UInt8]) {
        precondition(key.count >= 32, "a binding key has at least 32 bytes")
        mac = HMACKey(key)
    }

    /// The binding for one proposal.
    public func binding(_ terms: BindingTerms) -> ConfirmationBinding {
        ConfirmationBinding(digest: mac.hexAuthenticate(Self.message(terms)), expiresAt: terms.expiresAt)
    }

    /// Whether an echoed binding is exactly the one for these terms (compared in constant
    /// time, its hex digits in either case).
    public func matches(_ binding: ConfirmationBinding, _ terms: BindingTerms) -> Bool {
        guard binding.expiresAt == terms.expiresAt else { return false }
        var digest = binding.digest
        return digest.withUTF8 { mac.verifies(Self.message(terms), hex: $0) }
    }

    /// What the digest covers: a JSON array of strings, unambiguous whatever the fields
    /// contain. Written string by string into one buffer, byte for byte what Foundation's
    /// encoder gives for the `[String]` (`PaymentsHotPathEquivalenceTests`): every proposal
    /// and every answer makes one, and an array of the twelve fields, another of them as
    /// ``JSONValue``s and the generic writer over it were 2.4% of the payments worker.
    static func message(_ terms: BindingTerms) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(384)
        output.append(contentsOf: #"["intent-pipeline/binding/v3""#.utf8)
        func field(_ text: String) {
            output.append(UInt8(ascii: ","))
            CanonicalObjectWriter.write(text, into: &output)
        }
        field(terms.kind.rawValue)
        field(terms.intentID)
        field(terms.userID)
        field(terms.counterpartyContactID ?? "")
        field(terms.counterpartyAccount.map(Person.normalizedHandle) ?? "")
        field(terms.money.amount.description)
        field(terms.money.currency)
        field(terms.note ?? "")
        // An RFC 3339 time has nothing to escape: its digits go in as they are written.
        output.append(contentsOf: #",""#.utf8)
        terms.expiresAt.appendDescription(to: &output)
        output.append(UInt8(ascii: "\""))
        field(terms.counterpartyUserID ?? "")
        field(terms.requestSource ?? "")
        output.append(UInt8(ascii: "]"))
        return output
    }
}

/// Everything a user's "yes" is bound to: who pays (or requests), whom (the
/// contact, the account's handle and the user who owns that account), how
/// much, with which note, until when, and which voice service asked. Changing
/// any one of them (a swapped payee handle, a handle that changed owner, an
/// edited amount) makes the answer refer to another proposal, which the
/// payments stage refuses.
public struct BindingTerms: Sendable, Hashable {
    public var kind: Intent.Kind
    public var intentID: String
    /// The payer of a payment, the requester of a payment request.
    public var userID: String
    /// The resolved contact the user named.
    public var counterpartyContactID: String?
    /// The account (handle) credited, or asked to pay: the resolved contact's, never the caller's.
    public var counterpartyAccount: String?
    public var money: Money
    public var note: String?
    public var expiresAt: Timestamp
    /// The user who owns `counterpartyAccount` when the proposal was made: a handle that
    /// changes owner afterwards no longer matches what the user confirmed.
    public var counterpartyUserID: String?
    /// The voice service whose request this is (``RequestSource``): the only one whose
    /// answer counts.
    public var requestSource: String?

    public init(
        kind: Intent.Kind, intentID: String, userID: String, counterpartyContactID: String?,
        counterpartyAccount: String?, money: Money, note: String?, expiresAt: Timestamp,
        counterpartyUserID: String? = nil, requestSource: String? = nil
    ) {
        self.counterpartyUserID = counterpartyUserID
        self.requestSource = requestSource
        self.kind = kind
        self.intentID = intentID
        self.userID = userID
        self.counterpartyContactID = counterpartyContactID
        self.counterpartyAccount = counterpartyAccount
        self.money = money
        self.note = note
        self.expiresAt = expiresAt
    }
}
