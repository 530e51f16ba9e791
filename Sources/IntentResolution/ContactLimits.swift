import ContactResolution
import IntentEvents

/// The sizes `schemas/contact/upserted.v1.json` allows, checked by every reader of the
/// contacts topic (the resolve worker, the app state, replays) as it decodes a record.
///
/// A contact's id comes back in the voice service's next turn (`contactID` of a person,
/// at most 256 characters there): a longer one was offered as a candidate and then made
/// that turn `schema_invalid`, an intent with no final answer. Names and lists are the
/// resolver's work for every request of the user, once per directory version.
extension ContactRecord {
    /// Lengths count Unicode scalars, as JSON Schema's `maxLength` counts code points.
    public enum Limits {
        /// A contact's id, and each of the record key's two ids.
        public static let identifier = 256
        /// `displayName`, `givenName`, `familyName`, `nickname` and each alias.
        public static let name = 256
        public static let relation = 64
        public static let aliases = 32
        public static let handles = 32
        public static let handle = 256
    }

    /// Refuses (`schema_invalid`, naming the field) a contact with a text or a list longer than
    /// its schema allows.
    static func checkLimits(_ contact: Contact) throws(EventDecodingError) {
        let path = "$.data"  // a literal: no allocation
        try SchemaBounds.check(contact.id, Limits.identifier, at: "\(path).id")
        try SchemaBounds.check(contact.displayName, Limits.name, at: "\(path).displayName")
        try SchemaBounds.check(contact.givenName, Limits.name, at: "\(path).givenName")
        try SchemaBounds.check(contact.familyName, Limits.name, at: "\(path).familyName")
        try SchemaBounds.check(contact.nickname, Limits.name, at: "\(path).nickname")
        try SchemaBounds.check(contact.aliases, count: Limits.aliases, length: Limits.name, at: "\(path).aliases")
        try SchemaBounds.check(contact.relation, Limits.relation, at: "\(path).relation")
        try SchemaBounds.check(contact.handles, count: Limits.handles, length: Limits.handle, at: "\(path).handles")
    }

    /// Refuses a record key whose user or contact id is longer than an id may be (a
    /// tombstone has only its key).
    static func checkKeyLimits(_ ids: [String]) throws(EventDecodingError) {
        for (index, id) in ids.enumerated() { try SchemaBounds.check(id, Limits.identifier, at: "key[\(index)]") }
    }
}
