import Foundation
import IntentResolution
import Intents
import Testing

@Suite("Intent resolution, per intent and outcome")
struct IntentResolverTests {
    let resolver = IntentResolver()

    func resolve(_ intent: Intent) -> IntentResolutionReport {
        resolver.resolve(IntentRequested(turn: 1, intent: intent), contacts: sampleBook)
    }

    @Test("message 小明: the recipient resolves to the contact, with id, name and handle filled in")
    func sendMessageSuccess() throws {
        let report = resolve(.sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "晚上好")))
        #expect(outcomes(report)["recipients[0]"] == .success)
        #expect(outcomes(report)["content"] == .success)
        #expect(outcomes(report)["groupName"] == .notRequired)
        #expect(outcomes(report)["serviceName"] == .notRequired)
        #expect(!report.needsUser)
        guard case .sendMessage(let message) = report.intent else {
            throw TestFailure("kind changed")
        }
        #expect(message.recipients[0].contactID == "xiaoming")
        #expect(message.recipients[0].displayName == "小明")
        #expect(message.recipients[0].handle == "+86 138 0000 0001")
    }

    @Test("two Brandons: disambiguation, most-contacted first, and the intent is not resolved")
    func disambiguation() throws {
        let report = resolve(.sendMessage(SendMessageIntent(recipients: [Person(spoken: "Brandon")], content: "hi")))
        let recipient = try #require(parameter(report, "recipients[0]"))
        #expect(recipient.outcome == .disambiguation)
        #expect(recipient.candidates?.map(\.contactID) == ["brandon-smith", "brandon-lee"])
        #expect(recipient.candidates?.map(\.displayName) == ["Brandon Smith", "Brandon Lee"])
        #expect(report.needsUser)
    }

    @Test("the re-sent intent with the picked contact id resolves to that contact")
    func pickedCandidate() throws {
        let report = resolve(
            .sendMessage(
                SendMessageIntent(recipients: [Person(spoken: "Brandon", contactID: "brandon-lee")], content: "hi")))
        #expect(outcomes(report)["recipients[0]"] == .success)
        guard case .sendMessage(let message) = report.intent else { throw TestFailure("kind changed") }
        #expect(message.recipients[0].contactID == "brandon-lee")
        #expect(message.recipients[0].displayName == "Brandon Lee")
    }

    @Test("a contact id that is not the user's is unsupported, not trusted")
    func foreignContactID() {
        let report = resolve(.sendPayment(SendPaymentIntent(payee: Person(contactID: "someone-else"))))
        #expect(parameter(report, "payee")?.outcome == .unsupported)
        #expect(parameter(report, "payee")?.reason == "noContactFound")
    }

    @Test("a typo asks for confirmation with the one candidate")
    func confirmationRequired() {
        let report = resolve(
            .sendMessage(SendMessageIntent(recipients: [Person(spoken: "Robret Johnson")], content: "x")))
        #expect(parameter(report, "recipients[0]")?.outcome == .confirmationRequired)
        #expect(parameter(report, "recipients[0]")?.candidates?.map(\.contactID) == ["robert"])
    }

    @Test("nobody matches: unsupported with noContactFound")
    func unknownPerson() {
        let report = resolve(.sendMessage(SendMessageIntent(recipients: [Person(spoken: "Zebulon Quartermaine")])))
        #expect(parameter(report, "recipients[0]")?.outcome == .unsupported)
        #expect(parameter(report, "recipients[0]")?.reason == "noContactFound")
        #expect(outcomes(report)["content"] == .needsValue)
    }

    @Test("no recipients and no group needs a value; a group alone does not")
    func recipientsNeeded() {
        #expect(
            outcomes(resolve(.sendMessage(SendMessageIntent(recipients: [], content: "x"))))["recipients"]
                == .needsValue)
        let group = resolve(.sendMessage(SendMessageIntent(recipients: [], content: "x", groupName: "Family")))
        #expect(outcomes(group)["recipients"] == .notRequired)
        #expect(outcomes(group)["groupName"] == .success)
        #expect(!group.needsUser)
    }

    @Test("a handle finds the contact that has it, in any formatting")
    func handle() throws {
        let report = resolve(
            .sendMessage(SendMessageIntent(recipients: [Person(handle: "+8613800000001")], content: "x")))
        guard case .sendMessage(let message) = report.intent else { throw TestFailure("kind changed") }
        #expect(message.recipients[0].contactID == "xiaoming")
        let email = resolve(.sendPayment(SendPaymentIntent(payee: Person(handle: "Margaret@Example.com"))))
        #expect(parameter(email, "payee")?.outcome == .success)
    }

    @Test("an unknown messaging service is unsupported with the available ones")
    func service() {
        let report = resolve(
            .sendMessage(SendMessageIntent(recipients: [Person(spoken: "mom")], content: "x", serviceName: "Telegraph"))
        )
        #expect(parameter(report, "serviceName")?.reason == "serviceUnavailable")
        #expect(parameter(report, "serviceName")?.alternatives == ["sms", "chat"])
        let known = resolve(
            .sendMessage(SendMessageIntent(recipients: [Person(spoken: "mom")], content: "x", serviceName: "SMS")))
        #expect(outcomes(known)["serviceName"] == .success)
    }

    @Test("search: absent filters are notRequired; senders resolve in any script; a reversed range is unsupported")
    func search() {
        let empty = resolve(.searchForMessages(SearchForMessagesIntent()))
        #expect(Set(empty.parameters.map(\.outcome)) == [.notRequired])
        #expect(!empty.needsUser)
        let fromDima = resolve(
            .searchForMessages(
                SearchForMessagesIntent(
                    senders: [Person(spoken: "Дима")], keywords: ["ужин"], attributes: [.unread])))
        #expect(outcomes(fromDima)["senders[0]"] == .success)
        #expect(outcomes(fromDima)["keywords"] == .success)
        #expect(outcomes(fromDima)["attributes"] == .success)
        let reversed = resolve(
            .searchForMessages(
                SearchForMessagesIntent(dateRange: DateRange(start: fixedNow, end: fixedNow.addingTimeInterval(-60)))))
        #expect(parameter(reversed, "dateRange")?.reason == "invalidDateRange")
    }

    @Test("set attribute: message ids and the attribute are required")
    func setAttribute() {
        let missing = resolve(.setMessageAttribute(SetMessageAttributeIntent(messageIDs: [])))
        #expect(outcomes(missing)["messageIDs"] == .needsValue)
        #expect(outcomes(missing)["attribute"] == .needsValue)
        let complete = resolve(.setMessageAttribute(SetMessageAttributeIntent(messageIDs: ["m1"], attribute: .read)))
        #expect(!complete.needsUser)
    }

    @Test("send 100 CNY to 孙波 resolves; request 500 RUB from Yulia Shchukina (Latin for Cyrillic) resolves")
    func payments() throws {
        let send = resolve(
            .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: amount("100", "CNY"))))
        #expect(outcomes(send) == ["payee": .success, "currencyAmount": .success, "note": .notRequired])
        guard case .sendPayment(let payment) = send.intent else { throw TestFailure("kind changed") }
        #expect(payment.payee?.contactID == "sunbo")
        let request = resolve(
            .requestPayment(
                RequestPaymentIntent(
                    payer: Person(spoken: "Yulia Shchukina"), currencyAmount: amount("500", "RUB"), note: "билеты")))
        #expect(outcomes(request) == ["payer": .success, "currencyAmount": .success, "note": .success])
        guard case .requestPayment(let requested) = request.intent else { throw TestFailure("kind changed") }
        #expect(requested.payer?.contactID == "yulia")
    }

    @Test("a payment with nobody named needs the payee; an empty spoken name too")
    func paymentNeedsPayee() {
        #expect(
            outcomes(resolve(.sendPayment(SendPaymentIntent(currencyAmount: amount("1", "CNY")))))["payee"]
                == .needsValue)
        #expect(
            outcomes(resolve(.requestPayment(RequestPaymentIntent(payer: Person(spoken: " ")))))["payer"] == .needsValue
        )
    }
}
