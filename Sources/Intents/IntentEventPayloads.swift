/// `intent.requested.v1`: the voice service asks for an intent. The first turn
/// is 1; when a prompt was answered, the voice service re-sends the same intent
/// (same `intentid`) with the next turn and the answer filled in.
public struct IntentRequested: Codable, Sendable, Hashable {
    public static let type = "intent.requested.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:intent.requested:v1"

    public var turn: Int
    public var intent: Intent

    public init(turn: Int, intent: Intent) {
        self.turn = turn
        self.intent = intent
    }

    private enum CodingKeys: String, CodingKey { case turn, intent }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        turn = try container.decode(Int.self, forKey: .turn)
        guard turn >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .turn, in: container, debugDescription: "turns count from 1, got \(turn)")
        }
        intent = try container.decode(Intent.self, forKey: .intent)
    }
}

/// `intent.prompt.v1` and `intent.resolved.v1`: what resolution decided for
/// every parameter of one turn. A prompt (some parameter needs the user) goes
/// to the voice service, which can ask about all open parameters in one go and
/// re-sends the intent with `turn + 1`; a resolved intent (every parameter
/// success or notRequired, contact ids filled in) goes to the confirm stage.
public struct IntentResolutionReport: Codable, Sendable, Hashable {
    public static let promptType = "intent.prompt.v1"
    public static let promptDataSchema = "urn:intent-pipeline:schema:intent.prompt:v1"
    public static let resolvedType = "intent.resolved.v1"
    public static let resolvedDataSchema = "urn:intent-pipeline:schema:intent.resolved:v1"

    /// The turn this report answers.
    public var turn: Int
    public var intent: Intent
    public var parameters: [ParameterResolution]
    /// The version of the user's contact book the decision used (``ContactBookVersion``):
    /// what `intentctl replay resolve` rebuilds the book at. Nil from older resolvers.
    public var contactsVersion: String?
    /// The version of the resolver's configuration the decision was made under (currencies
    /// and limits, messaging services): replays compare only decisions made under the one
    /// they are given. Nil from older resolvers.
    public var resolverConfiguration: String?

    public init(
        turn: Int, intent: Intent, parameters: [ParameterResolution], contactsVersion: String? = nil,
        resolverConfiguration: String? = nil
    ) {
        self.turn = turn
        self.intent = intent
        self.parameters = parameters
        self.contactsVersion = contactsVersion
        self.resolverConfiguration = resolverConfiguration
    }

    /// Whether any parameter needs the user, i.e. this is a prompt.
    public var needsUser: Bool { parameters.contains { $0.outcome.needsUser } }
}
