public import IntentEvents

// Direct readers (``DirectlyReadPayload``) for the payloads the stages read per record and
// what they hold. Each reads what its `Codable` conformance reads, each member once, and
// refuses anything else (an unknown or repeated member, `null`, a wrong type), leaving the
// error to the `Codable` path.

extension Person {
    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> Person {
        var person = Person()
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "spoken": try readOnce(&person.spoken, &value)
            case "handle": try readOnce(&person.handle, &value)
            case "contactID": try readOnce(&person.contactID, &value)
            case "displayName": try readOnce(&person.displayName, &value)
            default: throw JSONRefusal()
            }
        }
        return person
    }

    public static func readAll(from reader: inout some JSONReading) throws(JSONRefusal) -> [Person] {
        var people: [Person] = []
        try reader.readArray { (item) throws(JSONRefusal) in people.append(try Person.read(from: &item)) }
        return people
    }
}

extension DateRange {
    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> DateRange {
        var range = DateRange()
        try reader.readObject { (key, value) throws(JSONRefusal) in
            guard let time = EventTime.parse(try value.readString()) else { throw JSONRefusal() }
            switch key {
            case "start": try setOnce(&range.start, time)
            case "end": try setOnce(&range.end, time)
            default: throw JSONRefusal()
            }
        }
        return range
    }
}

extension Intent {
    /// Every member any kind of intent has: which ones a kind takes is checked once its
    /// `kind` is known (it may come anywhere among them).
    private struct Members {
        var kind: Kind?
        var recipients: [Person]?
        var content: String?
        var groupName: String?
        var serviceName: String?
        var senders: [Person]?
        var dateRange: DateRange?
        var keywords: [String]?
        var attributes: [MessageAttribute]?
        var messageIDs: [String]?
        var attribute: MessageAttribute?
        var payee: Person?
        var payer: Person?
        var currencyAmount: CurrencyAmount?
        var note: String?
        var paymentRequestID: String?

        /// Whether any member other than those a kind takes is present.
        var hasMessageMembers: Bool {
            recipients != nil || content != nil || groupName != nil || serviceName != nil || senders != nil
                || dateRange != nil || keywords != nil || attributes != nil || messageIDs != nil || attribute != nil
        }
        var hasPaymentMembers: Bool {
            payee != nil || payer != nil || currencyAmount != nil || note != nil || paymentRequestID != nil
        }
    }

    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> Intent {
        var m = Members()
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "kind": try setOnce(&m.kind, readRaw(Kind.self, &value))
            case "recipients": try setOnce(&m.recipients, Person.readAll(from: &value))
            case "content": try readOnce(&m.content, &value)
            case "groupName": try readOnce(&m.groupName, &value)
            case "serviceName": try readOnce(&m.serviceName, &value)
            case "senders": try setOnce(&m.senders, Person.readAll(from: &value))
            case "dateRange": try setOnce(&m.dateRange, DateRange.read(from: &value))
            case "keywords": try setOnce(&m.keywords, readStrings(&value))
            case "attributes":
                var attributes: [MessageAttribute] = []
                try value.readArray { (item) throws(JSONRefusal) in
                    attributes.append(try readRaw(MessageAttribute.self, &item))
                }
                try setOnce(&m.attributes, attributes)
            case "messageIDs": try setOnce(&m.messageIDs, readStrings(&value))
            case "attribute": try setOnce(&m.attribute, readRaw(MessageAttribute.self, &value))
            case "payee": try setOnce(&m.payee, Person.read(from: &value))
            case "payer": try setOnce(&m.payer, Person.read(from: &value))
            case "currencyAmount": try setOnce(&m.currencyAmount, CurrencyAmount.read(from: &value))
            case "note": try readOnce(&m.note, &value)
            case "paymentRequestID": try readOnce(&m.paymentRequestID, &value)
            default: throw JSONRefusal()
            }
        }
        guard let kind = m.kind else { throw JSONRefusal() }
        switch kind {
        case .sendMessage:
            guard let recipients = m.recipients, !m.hasPaymentMembers, m.senders == nil, m.dateRange == nil,
                m.keywords == nil, m.attributes == nil, m.messageIDs == nil, m.attribute == nil
            else { throw JSONRefusal() }
            return .sendMessage(
                SendMessageIntent(
                    recipients: recipients, content: m.content, groupName: m.groupName, serviceName: m.serviceName))
        case .searchForMessages:
            guard !m.hasPaymentMembers, m.content == nil, m.groupName == nil, m.serviceName == nil,
                m.messageIDs == nil, m.attribute == nil
            else { throw JSONRefusal() }
            return .searchForMessages(
                SearchForMessagesIntent(
                    senders: m.senders, recipients: m.recipients, dateRange: m.dateRange, keywords: m.keywords,
                    attributes: m.attributes))
        case .setMessageAttribute:
            guard let messageIDs = m.messageIDs, !m.hasPaymentMembers, m.recipients == nil, m.content == nil,
                m.groupName == nil, m.serviceName == nil, m.senders == nil, m.dateRange == nil, m.keywords == nil,
                m.attributes == nil
            else { throw JSONRefusal() }
            return .setMessageAttribute(SetMessageAttributeIntent(messageIDs: messageIDs, attribute: m.attribute))
        case .sendPayment:
            guard !m.hasMessageMembers, m.payer == nil else { throw JSONRefusal() }
            return .sendPayment(
                SendPaymentIntent(
                    payee: m.payee, currencyAmount: m.currencyAmount, note: m.note,
                    paymentRequestID: m.paymentRequestID))
        case .requestPayment:
            guard !m.hasMessageMembers, m.payee == nil, m.paymentRequestID == nil else { throw JSONRefusal() }
            return .requestPayment(RequestPaymentIntent(payer: m.payer, currencyAmount: m.currencyAmount, note: m.note))
        }
    }
}

extension MessageArgument {
    /// One member naming the kind, as ``init(json:)`` reads it.
    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> MessageArgument {
        var argument: MessageArgument?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            guard argument == nil else { throw JSONRefusal() }
            switch key {
            case "text": argument = .text(try value.readString())
            case "amount": argument = .amount(try CurrencyAmount.read(from: &value))
            case "number": argument = .number(try readInt(&value))
            case "names": argument = .names(try readStrings(&value))
            case "choices": argument = .choices(try readStrings(&value))
            default: throw JSONRefusal()
            }
        }
        guard let argument else { throw JSONRefusal() }
        return argument
    }

    /// Arguments by name, each name once.
    static func readAll(from reader: inout some JSONReading) throws(JSONRefusal) -> [String: MessageArgument] {
        var arguments: [String: MessageArgument] = [:]
        try reader.readObject { (key, value) throws(JSONRefusal) in
            guard arguments[key] == nil else { throw JSONRefusal() }
            arguments[key] = try MessageArgument.read(from: &value)
        }
        return arguments
    }
}

extension ConfirmationBinding {
    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> ConfirmationBinding {
        var digest: String?
        var expiresAt: Timestamp?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "digest": try readOnce(&digest, &value)
            case "expiresAt": try setOnce(&expiresAt, Timestamp.read(from: &value))
            default: throw JSONRefusal()
            }
        }
        guard let digest, let expiresAt else { throw JSONRefusal() }
        return ConfirmationBinding(digest: digest, expiresAt: expiresAt)
    }
}

extension IntentRequested: DirectlyReadPayload {
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> IntentRequested {
        var turn: Int?
        var intent: Intent?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "turn": try setOnce(&turn, readInt(&value))
            case "intent": try setOnce(&intent, Intent.read(from: &value))
            default: throw JSONRefusal()
            }
        }
        guard let turn, turn >= 1, let intent else { throw JSONRefusal() }
        return IntentRequested(turn: turn, intent: intent)
    }
}

extension ParameterResolution {
    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> ParameterResolution {
        var parameter: String?
        var outcome: ParameterOutcome?
        var resolution = ParameterResolution(parameter: "", outcome: .success)
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "parameter": try readOnce(&parameter, &value)
            case "outcome": try setOnce(&outcome, readRaw(ParameterOutcome.self, &value))
            case "candidates":
                var candidates: [ContactCandidate] = []
                try value.readArray { (item) throws(JSONRefusal) in
                    candidates.append(try ContactCandidate.read(from: &item))
                }
                try setOnce(&resolution.candidates, candidates)
            case "reason": try readOnce(&resolution.reason, &value)
            case "alternatives": try setOnce(&resolution.alternatives, readStrings(&value))
            case "message": try readOnce(&resolution.message, &value)
            case "messageKey": try setOnce(&resolution.messageKey, readRaw(MessageKey.self, &value))
            case "messageArguments": try setOnce(&resolution.messageArguments, MessageArgument.readAll(from: &value))
            default: throw JSONRefusal()
            }
        }
        guard let parameter, let outcome else { throw JSONRefusal() }
        resolution.parameter = parameter
        resolution.outcome = outcome
        return resolution
    }
}

extension ContactCandidate {
    static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> ContactCandidate {
        var contactID: String?
        var displayName: String?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "contactID": try readOnce(&contactID, &value)
            case "displayName": try readOnce(&displayName, &value)
            default: throw JSONRefusal()
            }
        }
        guard let contactID, let displayName else { throw JSONRefusal() }
        return ContactCandidate(contactID: contactID, displayName: displayName)
    }
}

extension IntentResolutionReport: DirectlyReadPayload {
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal)
        -> IntentResolutionReport
    {
        var turn: Int?
        var intent: Intent?
        var parameters: [ParameterResolution]?
        var contactsVersion: String?
        var resolverConfiguration: String?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "turn": try setOnce(&turn, readInt(&value))
            case "intent": try setOnce(&intent, Intent.read(from: &value))
            case "parameters":
                var read: [ParameterResolution] = []
                try value.readArray { (item) throws(JSONRefusal) in
                    read.append(try ParameterResolution.read(from: &item))
                }
                try setOnce(&parameters, read)
            case "contactsVersion": try readOnce(&contactsVersion, &value)
            case "resolverConfiguration": try readOnce(&resolverConfiguration, &value)
            default: throw JSONRefusal()
            }
        }
        guard let turn, let intent, let parameters else { throw JSONRefusal() }
        return IntentResolutionReport(
            turn: turn, intent: intent, parameters: parameters, contactsVersion: contactsVersion,
            resolverConfiguration: resolverConfiguration)
    }
}

extension IntentConfirmation: DirectlyReadPayload {
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> IntentConfirmation {
        var turn: Int?
        var intent: Intent?
        var code: ResponseCode?
        var proposedResponse: String?
        var confirmation = IntentConfirmation(
            turn: 1, intent: .sendMessage(.init(recipients: [])), code: .ready, proposedResponse: "")
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "turn": try setOnce(&turn, readInt(&value))
            case "intent": try setOnce(&intent, Intent.read(from: &value))
            case "code": try setOnce(&code, readRaw(ResponseCode.self, &value))
            case "reason": try readOnce(&confirmation.reason, &value)
            case "proposedResponse": try readOnce(&proposedResponse, &value)
            case "messageKey": try setOnce(&confirmation.messageKey, readRaw(MessageKey.self, &value))
            case "messageArguments": try setOnce(&confirmation.messageArguments, MessageArgument.readAll(from: &value))
            case "binding": try setOnce(&confirmation.binding, ConfirmationBinding.read(from: &value))
            case "ledgerVersion": try setOnce(&confirmation.ledgerVersion, readInt(&value))
            default: throw JSONRefusal()
            }
        }
        guard let turn, let intent, let code, let proposedResponse else { throw JSONRefusal() }
        confirmation.turn = turn
        confirmation.intent = intent
        confirmation.code = code
        confirmation.proposedResponse = proposedResponse
        return confirmation
    }
}

extension ConfirmationRequest: DirectlyReadPayload {
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> ConfirmationRequest {
        var intent: Intent?
        var amount: CurrencyAmount?
        var proposedResponse: String?
        var binding: ConfirmationBinding?
        var contactID: String?
        var displayName: String?
        var account: String?
        var messageKey: MessageKey?
        var messageArguments: [String: MessageArgument]?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "intent": try setOnce(&intent, Intent.read(from: &value))
            case "counterpartyContactID": try readOnce(&contactID, &value)
            case "counterpartyDisplayName": try readOnce(&displayName, &value)
            case "counterpartyAccount": try readOnce(&account, &value)
            case "amount": try setOnce(&amount, CurrencyAmount.read(from: &value))
            case "proposedResponse": try readOnce(&proposedResponse, &value)
            case "messageKey": try setOnce(&messageKey, readRaw(MessageKey.self, &value))
            case "messageArguments": try setOnce(&messageArguments, MessageArgument.readAll(from: &value))
            case "binding": try setOnce(&binding, ConfirmationBinding.read(from: &value))
            default: throw JSONRefusal()
            }
        }
        guard let intent, let amount, let proposedResponse, let binding else { throw JSONRefusal() }
        var request = ConfirmationRequest(
            intent: intent, counterpartyContactID: contactID, counterpartyDisplayName: displayName,
            counterpartyAccount: account, amount: amount, proposedResponse: proposedResponse, binding: binding)
        request.messageKey = messageKey
        request.messageArguments = messageArguments
        return request
    }
}

extension ConfirmationAnswer: DirectlyReadPayload {
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> ConfirmationAnswer {
        var decision: Decision?
        var binding: ConfirmationBinding?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "decision": try setOnce(&decision, readRaw(Decision.self, &value))
            case "binding": try setOnce(&binding, ConfirmationBinding.read(from: &value))
            default: throw JSONRefusal()
            }
        }
        guard let decision, let binding else { throw JSONRefusal() }
        return ConfirmationAnswer(decision: decision, binding: binding)
    }
}

extension IntentResponse: DirectlyReadPayload {
    /// Every intent's final response is read by the audit, the app state's projection and
    /// the simulation's checks (each one, every response): through `Codable` that was a box,
    /// a coding-key lookup and a link object per field.
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> IntentResponse {
        var kind: Intent.Kind?
        var code: ResponseCode?
        var message: String?
        var response = IntentResponse(kind: .sendMessage, code: .success, message: "")
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "kind": try setOnce(&kind, readRaw(Intent.Kind.self, &value))
            case "code": try setOnce(&code, readRaw(ResponseCode.self, &value))
            case "reason": try readOnce(&response.reason, &value)
            case "message": try readOnce(&message, &value)
            case "messageKey": try setOnce(&response.messageKey, readRaw(MessageKey.self, &value))
            case "messageArguments": try setOnce(&response.messageArguments, MessageArgument.readAll(from: &value))
            case "transferID": try readOnce(&response.transferID, &value)
            case "paymentRequestID": try readOnce(&response.paymentRequestID, &value)
            case "messageIDs": try setOnce(&response.messageIDs, readStrings(&value))
            case "ledgerVersion": try setOnce(&response.ledgerVersion, readInt(&value))
            default: throw JSONRefusal()
            }
        }
        guard let kind, let code, let message else { throw JSONRefusal() }
        response.kind = kind
        response.code = code
        response.message = message
        return response
    }
}
