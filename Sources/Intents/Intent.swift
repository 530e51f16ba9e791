/// One of the intents the pipeline handles. On the wire it is an object with
/// a `kind` discriminator next to the intent's own fields.
public enum Intent: Sendable, Hashable {
    case sendMessage(SendMessageIntent)
    case searchForMessages(SearchForMessagesIntent)
    case setMessageAttribute(SetMessageAttributeIntent)
    case sendPayment(SendPaymentIntent)
    case requestPayment(RequestPaymentIntent)

    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        case sendMessage, searchForMessages, setMessageAttribute, sendPayment, requestPayment
    }

    public var kind: Kind {
        switch self {
        case .sendMessage: .sendMessage
        case .searchForMessages: .searchForMessages
        case .setMessageAttribute: .setMessageAttribute
        case .sendPayment: .sendPayment
        case .requestPayment: .requestPayment
        }
    }

    /// Payments are always confirmed by the user before they are handled.
    public var isFinancial: Bool {
        switch self {
        case .sendPayment, .requestPayment: true
        case .sendMessage, .searchForMessages, .setMessageAttribute: false
        }
    }
}

extension Intent: Codable {
    private enum DiscriminatorKey: String, CodingKey { case kind }

    public init(from decoder: any Decoder) throws {
        let kind = try decoder.container(keyedBy: DiscriminatorKey.self).decode(Kind.self, forKey: .kind)
        switch kind {
        case .sendMessage: self = .sendMessage(try SendMessageIntent(from: decoder))
        case .searchForMessages: self = .searchForMessages(try SearchForMessagesIntent(from: decoder))
        case .setMessageAttribute: self = .setMessageAttribute(try SetMessageAttributeIntent(from: decoder))
        case .sendPayment: self = .sendPayment(try SendPaymentIntent(from: decoder))
        case .requestPayment: self = .requestPayment(try RequestPaymentIntent(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DiscriminatorKey.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .sendMessage(let intent): try intent.encode(to: encoder)
        case .searchForMessages(let intent): try intent.encode(to: encoder)
        case .setMessageAttribute(let intent): try intent.encode(to: encoder)
        case .sendPayment(let intent): try intent.encode(to: encoder)
        case .requestPayment(let intent): try intent.encode(to: encoder)
        }
    }
}
