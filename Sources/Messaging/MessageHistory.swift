public import IntentEvents
public import Intents

/// Every user's messages, materialized from message events. Idempotent:
/// events carry unique ids.
public struct MessageHistory: Sendable {
    public struct Message: Sendable, Hashable {
        public var id: String
        public var intentID: String
        public var userID: String
        public var conversation: String
        public var recipients: [Person]
        public var content: String
        public var serviceName: String?
        public var sentAt: Timestamp
        public var dueAt: Timestamp?
        public var status: MessageEvent.Status
        public var attributes: Set<MessageAttribute>
        /// The sender's locale, while queued.
        public var locale: String?
    }

    private var messages: [String: [String: Message]] = [:]
    /// Message ids by user and intent: the handle stage asks this for every record, so it
    /// must not cost a scan (and a sort) of the user's whole history.
    private var byIntent: [IntentKey: [String]] = [:]
    /// Queued messages by user: the tick asks for those due every second, so it must not
    /// scan every delivered message.
    private var queued: [String: Set<String>] = [:]
    /// Messages a tick delivered whose final response was not recorded as sent here
    /// (``answered(_:of:)``), by user: a member that restores them from the topic cannot
    /// know whether the member that delivered them answered before it stopped.
    private var unanswered: [String: Set<String>] = [:]
    private var applied: Set<String> = []

    private struct IntentKey: Hashable {
        var userID: String
        var intentID: String
    }

    public init() {}

    public mutating func apply(_ event: MessageEvent) {
        guard applied.insert(event.id).inserted else { return }
        switch event.kind {
        case .queued, .delivered:
            for id in event.messageIDs {
                var message =
                    messages[event.userID]?[id]
                    ?? Message(
                        id: id, intentID: event.intentID, userID: event.userID, conversation: event.conversation ?? "",
                        recipients: event.recipients ?? [], content: event.content ?? "",
                        serviceName: event.serviceName,
                        sentAt: event.at, dueAt: event.dueAt, status: .queued, attributes: [.read],
                        locale: event.locale)
                if event.kind == .delivered {
                    if message.status == .queued, messages[event.userID]?[id] != nil {
                        unanswered[event.userID, default: []].insert(id)
                    }
                    message.status = .delivered
                    message.sentAt = event.at
                }
                if messages[event.userID]?[id] == nil {
                    byIntent[IntentKey(userID: event.userID, intentID: message.intentID), default: []].append(id)
                }
                if message.status == .queued {
                    queued[event.userID, default: []].insert(id)
                } else {
                    queued[event.userID]?.remove(id)
                }
                messages[event.userID, default: [:]][id] = message
            }
        case .attributeSet:
            guard let attribute = event.attribute else { return }
            for id in event.messageIDs where messages[event.userID]?[id] != nil {
                messages[event.userID]?[id]?.attributes.subtract(Self.opposites(of: attribute))
                messages[event.userID]?[id]?.attributes.insert(attribute)
            }
        }
    }

    public func messages(of userID: String) -> [Message] {
        (messages[userID]?.values).map { $0.sorted { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) } } ?? []
    }

    public func message(_ id: String, of userID: String) -> Message? { messages[userID]?[id] }

    public func messages(forIntent intentID: String, of userID: String) -> [Message] {
        (byIntent[IntentKey(userID: userID, intentID: intentID)] ?? []).compactMap { messages[userID]?[$0] }
            .sorted { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }
    }

    /// Queued messages whose delivery time has come, for the users this worker owns.
    public func due(at now: Timestamp, owns: (String) -> Bool) -> [Message] {
        queued.filter { owns($0.key) && !$0.value.isEmpty }
            .flatMap { user, ids in ids.compactMap { messages[user]?[$0] } }
            .filter { $0.status == .queued && ($0.dueAt.map { $0 <= now } ?? true) }
            .sorted { $0.id < $1.id }
    }

    /// Marks a tick's delivery as answered: its final response went out from here.
    public mutating func answered(_ id: String, of userID: String) {
        unanswered[userID]?.remove(id)
    }

    /// Takes the deliveries of the users this worker owns that no final response is recorded
    /// for: those delivered at `since` or later, to answer again (the answer's id is derived,
    /// so a copy of one that did go out changes nothing); older ones are forgotten unanswered.
    public mutating func takeUnanswered(deliveredSince since: Timestamp, owns: (String) -> Bool) -> [Message] {
        var taken: [Message] = []
        for (user, ids) in unanswered where owns(user) && !ids.isEmpty {
            taken += ids.compactMap { messages[user]?[$0] }.filter { $0.sentAt >= since }
            unanswered[user] = nil
        }
        return taken.sorted { $0.id < $1.id }
    }

    private static func opposites(of attribute: MessageAttribute) -> Set<MessageAttribute> {
        switch attribute {
        case .read, .unread: [.read, .unread]
        case .flagged, .unflagged: [.flagged, .unflagged]
        }
    }
}
