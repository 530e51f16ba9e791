import ContactResolution
public import Intents

/// SiriKit's resolve stage as a pure function: every parameter of an intent
/// gets an outcome, and the intent comes back with what resolved filled in.
/// No broker, no clock, no state: the worker supplies the user's contacts.
public struct IntentResolver: Sendable {
    public var amounts: AmountPolicy
    /// Messaging services the app can send through, by the name users say.
    public var messagingServices: [String]

    public init(amounts: AmountPolicy = .default, messagingServices: [String] = ["sms", "chat"]) {
        self.amounts = amounts
        self.messagingServices = messagingServices
    }

    public func resolve(_ request: IntentRequested, contacts: ContactBook) -> IntentResolutionReport {
        let people = PersonResolution(book: contacts)
        var results: [ParameterResolution] = []
        let intent: Intent
        switch request.intent {
        case .sendMessage(var message):
            if message.recipients.isEmpty {
                results.append(
                    message.groupName == nil
                        ? ParameterResolution(parameter: "recipients", outcome: .needsValue, message: "to whom?")
                        : ParameterResolution(parameter: "recipients", outcome: .notRequired))
            }
            message.recipients = resolve(message.recipients, "recipients", people, into: &results)
            results.append(required(message.content, "content", ask: "what should it say?"))
            results.append(optional(message.groupName, "groupName"))
            results.append(service(message.serviceName))
            intent = .sendMessage(message)
        case .searchForMessages(var search):
            search.senders = resolveOptional(search.senders, "senders", people, into: &results)
            search.recipients = resolveOptional(search.recipients, "recipients", people, into: &results)
            results.append(dateRange(search.dateRange))
            results.append(optional(search.keywords.flatMap { $0.isEmpty ? nil : $0 }, "keywords"))
            results.append(optional(search.attributes.flatMap { $0.isEmpty ? nil : $0 }, "attributes"))
            intent = .searchForMessages(search)
        case .setMessageAttribute(let change):
            results.append(
                change.messageIDs.isEmpty
                    ? ParameterResolution(parameter: "messageIDs", outcome: .needsValue, message: "which messages?")
                    : ParameterResolution(parameter: "messageIDs", outcome: .success))
            results.append(
                change.attribute == nil
                    ? ParameterResolution(
                        parameter: "attribute", outcome: .needsValue, message: "read, unread, flagged or unflagged?")
                    : ParameterResolution(parameter: "attribute", outcome: .success))
            intent = .setMessageAttribute(change)
        case .sendPayment(var payment):
            payment.payee = resolvePayment(
                payment.payee, "payee", payment.currencyAmount, payment.note, people, into: &results)
            intent = .sendPayment(payment)
        case .requestPayment(var request):
            request.payer = resolvePayment(
                request.payer, "payer", request.currencyAmount, request.note, people, into: &results)
            intent = .requestPayment(request)
        }
        return IntentResolutionReport(turn: request.turn, intent: intent, parameters: results)
    }

    private func resolve(
        _ people: [Person], _ name: String, _ resolution: PersonResolution,
        into results: inout [ParameterResolution]
    ) -> [Person] {
        people.enumerated().map { index, person in
            let (result, resolved) = resolution.resolve(person, parameter: "\(name)[\(index)]")
            results.append(result)
            return resolved ?? person
        }
    }

    /// Optional people (a search's senders or recipients): notRequired when absent.
    private func resolveOptional(
        _ people: [Person]?, _ name: String, _ resolution: PersonResolution,
        into results: inout [ParameterResolution]
    ) -> [Person]? {
        guard let people, !people.isEmpty else {
            results.append(ParameterResolution(parameter: name, outcome: .notRequired))
            return people
        }
        return resolve(people, name, resolution, into: &results)
    }

    /// The counterparty, the amount and the note of a payment or a payment request.
    private func resolvePayment(
        _ person: Person?, _ role: String, _ amount: CurrencyAmount?, _ note: String?, _ resolution: PersonResolution,
        into results: inout [ParameterResolution]
    ) -> Person? {
        let (result, resolved) = resolution.resolve(person, parameter: role)
        results += [result, amounts.resolve(amount, parameter: "currencyAmount"), optional(note, "note")]
        return resolved
    }

    private func required(_ text: String?, _ parameter: String, ask: String) -> ParameterResolution {
        let present = !(text?.trimmingWhitespaceAndNewlines.isEmpty ?? true)
        return present
            ? ParameterResolution(parameter: parameter, outcome: .success)
            : ParameterResolution(parameter: parameter, outcome: .needsValue, message: ask)
    }

    private func optional(_ value: (some Any)?, _ parameter: String) -> ParameterResolution {
        ParameterResolution(parameter: parameter, outcome: value == nil ? .notRequired : .success)
    }

    private func service(_ name: String?) -> ParameterResolution {
        guard let name else { return ParameterResolution(parameter: "serviceName", outcome: .notRequired) }
        guard messagingServices.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
            return ParameterResolution(
                parameter: "serviceName", outcome: .unsupported, reason: "serviceUnavailable",
                alternatives: messagingServices, message: "\(name) is not available")
        }
        return ParameterResolution(parameter: "serviceName", outcome: .success)
    }

    private func dateRange(_ range: DateRange?) -> ParameterResolution {
        guard let range else { return ParameterResolution(parameter: "dateRange", outcome: .notRequired) }
        if let start = range.start, let end = range.end, start > end {
            return ParameterResolution(
                parameter: "dateRange", outcome: .unsupported, reason: "invalidDateRange",
                message: "the range starts after it ends")
        }
        return ParameterResolution(parameter: "dateRange", outcome: .success)
    }
}
