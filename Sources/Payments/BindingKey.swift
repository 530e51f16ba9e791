import IntentCrypto
public import IntentEvents
public import Intents

/// The secret that makes confirmation bindings unforgeable: only the
/// payments worker, which holds it, can produce a digest the answer will be
/// checked against.
public struct BindingKey: Sendable {
    private let key: [UInt8]

    public init(_ key: [UInt8]) {
        precondition(key.count >= 32, "a binding key has at least 32 bytes")
        self.key = key
    }

    /// The binding for one proposal.
    public func binding(
        intentID: String, userID: String, counterpartyContactID: String?, money: Money, expiresAt: Timestamp
    ) -> ConfirmationBinding {
        ConfirmationBinding(
            digest: digest(intentID, userID, counterpartyContactID, money, expiresAt), expiresAt: expiresAt)
    }

    /// Whether an echoed binding is exactly the one for this proposal (compared in constant time).
    public func matches(
        _ binding: ConfirmationBinding, intentID: String, userID: String, counterpartyContactID: String?, money: Money,
        expiresAt: Timestamp
    ) -> Bool {
        let expected = digest(intentID, userID, counterpartyContactID, money, expiresAt)
        return binding.expiresAt == expiresAt
            && Digest.constantTimeEqual(Array(expected.utf8), Array(binding.digest.lowercased().utf8))
    }

    private func digest(
        _ intentID: String, _ userID: String, _ contactID: String?, _ money: Money, _ expiresAt: Timestamp
    ) -> String {
        // A JSON array: unambiguous whatever the fields contain.
        let message = CanonicalJSON.encode([
            "intent-pipeline/binding/v1", intentID, userID, contactID ?? "", money.amount.description, money.currency,
            expiresAt.description,
        ])
        return Digest.hex(Digest.hmacSHA256(key: key, message: message))
    }
}
