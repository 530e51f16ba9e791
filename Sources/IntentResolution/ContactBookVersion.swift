public import ContactResolution
import IntentCrypto
import IntentEvents

/// A name for one state of a user's contact book: the first 8 bytes, in hex,
/// of the SHA-256 of its contacts in canonical JSON, sorted by id. The resolve
/// stage records it with each decision, so an auditor re-deriving the decision
/// later (`intentctl replay resolve`) rebuilds exactly the book it used from the
/// contacts topic's history, whatever changed since. Content, not an offset:
/// the same contacts give the same version on any member, and a redone
/// decision republishes the same bytes.
public enum ContactBookVersion {
    public static func of(_ contacts: [Contact]) -> String {
        Digest.hex(Digest.sha256(CanonicalJSON.encode(contacts.sorted { $0.id < $1.id })).prefix(8))
    }
}
