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

    enum CodingKeys: String, CodingKey {
        case id, displayName, givenName, familyName, nickname, aliases, relation, handles, interactionCount
        case lastInteraction
    }

    /// `lastInteraction` is an ISO-8601 string on the wire (with or without
    /// fractional seconds), wherever contacts travel: file, topic, or test.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        displayName = try container.decode(String.self, forKey: .displayName)
        givenName = try container.decodeIfPresent(String.self, forKey: .givenName)
        familyName = try container.decodeIfPresent(String.self, forKey: .familyName)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        aliases = try container.decodeIfPresent([String].self, forKey: .aliases)
        relation = try container.decodeIfPresent(String.self, forKey: .relation)
        handles = try container.decodeIfPresent([String].self, forKey: .handles)
        interactionCount = try container.decodeIfPresent(Int.self, forKey: .interactionCount)
        if let text = try container.decodeIfPresent(String.self, forKey: .lastInteraction) {
            let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            guard let date = (try? withFraction.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text)) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .lastInteraction, in: container, debugDescription: "not an ISO-8601 time: \(text)")
            }
            lastInteraction = date
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(displayName, forKey: .displayName)
        try container.encodeIfPresent(givenName, forKey: .givenName)
        try container.encodeIfPresent(familyName, forKey: .familyName)
        try container.encodeIfPresent(nickname, forKey: .nickname)
        try container.encodeIfPresent(aliases, forKey: .aliases)
        try container.encodeIfPresent(relation, forKey: .relation)
        try container.encodeIfPresent(handles, forKey: .handles)
        try container.encodeIfPresent(interactionCount, forKey: .interactionCount)
        try container.encodeIfPresent(
            lastInteraction?.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            forKey: .lastInteraction)
    }
}
