import ContactResolution
public import Foundation

/// Every user's contacts, materialized from the compacted contacts topic:
/// upserts replace a contact, tombstones remove it. A worker rebuilds it on
/// start by reading the topic from the beginning. Each user's
/// ``ContactBook`` is built when first needed after a change, so a burst of
/// upserts costs one index build, not one per record.
public struct ContactDirectory: Sendable {
    private var contacts: [String: [String: Contact]] = [:]
    private var books: [String: ContactBook] = [:]
    /// Names transliterated for earlier books: a change to one contact rebuilds its
    /// user's book, whose other names are already known.
    private let spellings = NameSpellingCache()

    public init() {}

    public mutating func apply(_ record: ContactRecord) {
        switch record {
        case .upsert(let userID, let contact):
            contacts[userID, default: [:]][contact.id] = contact
            books[userID] = nil
        case .delete(let userID, let contactID):
            contacts[userID]?[contactID] = nil
            if contacts[userID]?.isEmpty == true { contacts[userID] = nil }
            books[userID] = nil
        }
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
