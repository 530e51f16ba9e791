import ContactResolution
public import Foundation

/// Every user's contacts, materialized from the compacted contacts topic:
/// upserts replace a contact, tombstones remove it. A worker rebuilds it on
/// start by reading the topic from the beginning. Each user's
/// ``ContactBook`` is built when first needed after a change, so a burst of
/// upserts costs one index build, not one per record. It keeps the highest
/// version applied per contact, deletions included, so an older record read
/// later (a replay) is ignored.
public struct ContactDirectory: Sendable {
    private var contacts: [String: [String: Contact]] = [:]
    /// Per user, per contact: the version applied last (kept after a deletion).
    private var versions: [String: [String: Int64]] = [:]
    private var books: [String: ContactBook] = [:]
    /// Names transliterated for earlier books: a change to one contact rebuilds its
    /// user's book, whose other names are already known.
    private let spellings = NameSpellingCache()

    public init() {}

    /// Applies the record unless the contact is already at its version or newer.
    @discardableResult
    public mutating func apply(_ record: ContactRecord) -> DirectoryChange {
        let seen = versions[record.userID]?[record.contactID]
        guard RecordVersion.supersedes(record.version, seen: seen) else {
            return .stale(version: record.version, seen: seen ?? RecordVersion.unversioned)
        }
        versions[record.userID, default: [:]][record.contactID] = record.version
        switch record {
        case .upsert(let userID, let contact, _):
            contacts[userID, default: [:]][contact.id] = contact
        case .delete(let userID, let contactID, _):
            contacts[userID]?[contactID] = nil
            if contacts[userID]?.isEmpty == true { contacts[userID] = nil }
        }
        books[record.userID] = nil
        return .applied
    }

    /// The user's contacts, indexed; built now if they changed since the last call.
    public mutating func book(for userID: String, now: Date = Date()) -> ContactBook {
        if let book = books[userID] { return book }
        guard let userContacts = contacts[userID] else { return .empty }
        // Sorted by id, so ranking ties break the same way on every rebuild.
        let sorted = userContacts.values.sorted { $0.id < $1.id }
        let book = ContactBook(
            contacts: sorted, resolver: ContactResolver(contacts: sorted, now: now, spellingCache: spellings))
        books[userID] = book
        return book
    }

    public var userCount: Int { contacts.count }
    public var contactCount: Int { contacts.values.reduce(0) { $0 + $1.count } }
}
