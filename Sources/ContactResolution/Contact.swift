public import Foundation

/// A person in the user's address book, as the contacts topic and the batch
/// interface (`intentctl contacts resolve --contacts FILE`) carry it. Names
/// may be in any script.
public struct Contact: Codable, Sendable, Hashable, Identifiable {
    public var id: String
    public var displayName: String
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    public var aliases: [String]?
    /// A relationship word the user uses for this person: "mother", "sister", "boss".
    public var relation: String?
    public var handles: [String]?
    /// How often the user contacted this person; ranks ambiguous matches.
    public var interactionCount: Int?
    public var lastInteraction: Date?

    public init(
        id: String, displayName: String, givenName: String? = nil, familyName: String? = nil,
        nickname: String? = nil, aliases: [String]? = nil, relation: String? = nil, handles: [String]? = nil,
        interactionCount: Int? = nil, lastInteraction: Date? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.givenName = givenName
        self.familyName = familyName
        self.nickname = nickname
        self.aliases = aliases
        self.relation = relation
        self.handles = handles
        self.interactionCount = interactionCount
        self.lastInteraction = lastInteraction
    }
}
