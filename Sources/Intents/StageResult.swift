public import IntentEvents

/// Where a stage's output goes; the worker maps each to a topic.
public enum Destination: String, Sendable, Hashable, CaseIterable {
    /// To the voice service: questions and confirmation requests.
    case prompts
    /// Resolved intents, to the confirm stage.
    case resolved
    /// Confirmed messaging intents, to the handle stage.
    case confirmed
    /// Confirmed financial intents and users' answers, to the payments stage.
    case confirmations
    /// Final (or in-progress) responses.
    case responses
    /// The payments worker's event log.
    case ledger
    /// The messaging history.
    case messages
    /// A payments decision's effect on another user's state (a payee's credit), to that
    /// user's partition of the confirmations topic. Sent with the notices, not the state:
    /// only once the decision it follows from has been read back under this member's claim
    /// (a member that lost the partition sends none), and again, with the same bytes, when
    /// the deciding event is redelivered.
    case effects

    /// Whether view readers read it (the app state: responses, the ledger, messages; the
    /// confirm stage: the ledger), so it carries a view signature too (``ViewKey``): the
    /// other destinations are read only by stages that check signatures, and a second
    /// HMAC there would be work for nobody.
    public var isViewed: Bool {
        switch self {
        case .responses, .ledger, .messages: true
        case .prompts, .resolved, .confirmed, .confirmations, .effects: false
        }
    }

    /// Whether this is state (published and acknowledged before anything that reports on it).
    public var isState: Bool {
        switch self {
        case .ledger, .messages, .confirmations: true
        case .prompts, .resolved, .confirmed, .responses, .effects: false
        }
    }
}

/// What a stage decided for one record: events to publish, or a rejection
/// for the dead-letter topic, and a line for the log when nothing is published.
public struct StageResult: Sendable {
    public var events: [(destination: Destination, event: EventEnvelope)]
    public var rejected: EventDecodingError?
    public var note: String?

    public init(events: [(destination: Destination, event: EventEnvelope)] = [], note: String? = nil) {
        self.events = events
        self.note = note
    }

    public static func rejected(_ error: EventDecodingError) -> StageResult {
        var result = StageResult()
        result.rejected = error
        return result
    }

    public static func ignored(_ note: String) -> StageResult { StageResult(note: note) }

    /// The events of several decisions that reject nothing (a periodic tick run
    /// over each partition's state), in order.
    public static func merged(_ results: [StageResult]) -> StageResult {
        StageResult(events: results.flatMap(\.events))
    }
}
