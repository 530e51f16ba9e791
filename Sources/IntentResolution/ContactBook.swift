public import ContactResolution

/// One user's contacts, indexed for resolution: by spoken name (the
/// resolver), by id (an answer to a prompt) and by handle.
public struct ContactBook: Sendable {
    public let resolver: ContactResolver
    let byID: [String: Contact]
    let byHandle: [String: String]

    public init(contacts: some Sequence<Contact>, resolver: ContactResolver? = nil) {
        let contacts = Array(contacts)
        self.resolver = resolver ?? ContactResolver(contacts: contacts)
        byID = Dictionary(contacts.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        var byHandle: [String: String] = [:]
        for contact in contacts {
            for handle in contact.handles ?? [] { byHandle[Self.normalizedHandle(handle)] = contact.id }
        }
        self.byHandle = byHandle
    }

    public static let empty = ContactBook(contacts: [])

    public func contact(id: String) -> Contact? { byID[id] }

    public func contact(handle: String) -> Contact? { byHandle[Self.normalizedHandle(handle)].flatMap { byID[$0] } }

    public var count: Int { byID.count }

    /// "+86 138-0000-0000" and "+8613800000000" are the same handle; so are
    /// e-mail addresses in any letter case.
    static func normalizedHandle(_ handle: String) -> String {
        let lowered = handle.lowercased()
        if lowered.contains("@") { return lowered.filter { !$0.isWhitespace } }
        return lowered.filter { !$0.isWhitespace && !"-().".contains($0) }
    }
}
