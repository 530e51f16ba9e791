/// "Tell 小明 I'm running late": SiriKit's `INSendMessageIntent`.
public struct SendMessageIntent: Codable, Sendable, Hashable {
    public var recipients: [Person]
    public var content: String?
    /// A named group conversation, instead of or besides recipients.
    public var groupName: String?
    /// Which messaging service to use, when the user named one.
    public var serviceName: String?

    public init(recipients: [Person], content: String? = nil, groupName: String? = nil, serviceName: String? = nil) {
        self.recipients = recipients
        self.content = content
        self.groupName = groupName
        self.serviceName = serviceName
    }
}

/// "Show my unread messages from Dima since Monday": SiriKit's `INSearchForMessagesIntent`.
public struct SearchForMessagesIntent: Codable, Sendable, Hashable {
    public var senders: [Person]?
    public var recipients: [Person]?
    public var dateRange: DateRange?
    public var keywords: [String]?
    public var attributes: [MessageAttribute]?

    public init(
        senders: [Person]? = nil, recipients: [Person]? = nil, dateRange: DateRange? = nil, keywords: [String]? = nil,
        attributes: [MessageAttribute]? = nil
    ) {
        self.senders = senders
        self.recipients = recipients
        self.dateRange = dateRange
        self.keywords = keywords
        self.attributes = attributes
    }
}

/// "Mark that as read": SiriKit's `INSetMessageAttributeIntent`.
public struct SetMessageAttributeIntent: Codable, Sendable, Hashable {
    public var messageIDs: [String]
    public var attribute: MessageAttribute?

    public init(messageIDs: [String], attribute: MessageAttribute? = nil) {
        self.messageIDs = messageIDs
        self.attribute = attribute
    }
}
