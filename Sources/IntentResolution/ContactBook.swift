public import ContactResolution
import Intents

/// One user's contacts, indexed for resolution: by spoken name (the
/// resolver), by id (an answer to a prompt) and by handle.
public struct ContactBook: Sendable {
    public let resolver: ContactResolver
    /// Which contacts these are (``ContactBookVersion``), recorded with every decision.
    public let version: String
    let byID: [String: Contact]
    let byHandle: [String: String]

    public init(contacts: some Sequence<Contact>, resolver: ContactResolver? = nil) {
        let contacts = Array(contacts)
        self.resolver = resolver ?? ContactResolver(contacts: contacts)
        version = ContactBookVersion.of(contacts)
        byID = Dictionary(contacts.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        var byHandle: [String: String] = [:]
        for contact in contacts {
            for handle in contact.handles ?? [] { byHandle[Person.normalizedHandle(handle)] = contact.id }
        }
        self.byHandle = byHandle
    }

    public static let empty = ContactBook(contacts: [])

    public func contact(id: String) -> Contact? { byID[id] }

    public func contact(handle: String) -> Contact? { byHandle[Person.normalizedHandle(handle)].flatMap { byID[$0] } }

    public var count: Int { byID.count }
}
