public import IntentEvents
public import Intents

/// What the handle worker appends to the messages topic: the messaging
/// history, replayable. Keyed by the user whose history it is.
public struct MessageEvent: Codable, Sendable, Hashable {
    public static let type = "message.event.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:message.event:v1"

    public enum Kind: String, Codable, Sendable, Hashable {
        /// Accepted by a slow service; delivered when `dueAt` comes.
        case queued
        /// Sent and delivered.
        case delivered
        /// Attributes changed (read, unread, flagged, unflagged).
        case attributeSet
    }

    public enum Status: String, Codable, Sendable, Hashable { case queued, delivered }

    /// Unique per event (derived), so applying it twice changes nothing.
    public var id: String
    public var kind: Kind
    public var userID: String
    public var intentID: String
    public var messageIDs: [String]
    /// queued, delivered: the conversation (group name, or the sorted recipients).
    public var conversation: String?
    public var recipients: [Person]?
    public var content: String?
    public var serviceName: String?
    public var at: Timestamp
    public var dueAt: Timestamp?
    public var attribute: MessageAttribute?
    /// queued: the user's locale (``Localization/UserLocale``), so the answer given when the
    /// message is delivered later is said in it.
    public var locale: String?

    public init(
        id: String, kind: Kind, userID: String, intentID: String, messageIDs: [String], conversation: String? = nil,
        recipients: [Person]? = nil, content: String? = nil, serviceName: String? = nil, at: Timestamp,
        dueAt: Timestamp? = nil, attribute: MessageAttribute? = nil, locale: String? = nil
    ) {
        self.locale = locale
        self.id = id
        self.kind = kind
        self.userID = userID
        self.intentID = intentID
        self.messageIDs = messageIDs
        self.conversation = conversation
        self.recipients = recipients
        self.content = content
        self.serviceName = serviceName
        self.at = at
        self.dueAt = dueAt
        self.attribute = attribute
    }
}
