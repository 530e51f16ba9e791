import Foundation
import IntentEvents
import IntentResolution
import Intents
import Testing

@Suite("The resolve stage, record in and event out")
struct ResolveStageTests {
    func process(_ stage: inout ResolveStage, _ event: EventEnvelope, key: String? = "u1") -> ResolveStage.Output {
        stage.process(key: key, value: event.encoded(), now: fixedNow) { $0 == "u1" ? sampleBook : .empty }
    }

    func process(_ stage: inout ResolveStage, bytes: [UInt8], key: String? = "u1") -> ResolveStage.Output {
        stage.process(key: key, value: bytes, now: fixedNow) { _ in sampleBook }
    }

    @Test("a whole disambiguation round trip: prompt, re-sent turn with the pick, resolved, repeats ignored")
    func roundTrip() throws {
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        let first = requestEvent(
            turn: 1,
            intent: .sendPayment(
                SendPaymentIntent(payee: Person(spoken: "Brandon"), currencyAmount: amount("20", "CNY"))))
        guard case .prompt(let prompt) = process(&stage, first) else { throw TestFailure("expected a prompt") }
        #expect(prompt.type == "intent.prompt.v1")
        #expect(prompt.intentID == "intent-1")
        #expect(prompt.causationID == first.id)
        #expect(prompt.userID == "u1")
        let report = try prompt.decodeData(as: IntentResolutionReport.self)
        #expect(report.turn == 1)
        let payee = try #require(parameter(report, "payee"))
        #expect(payee.outcome == .disambiguation)
        let picked = try #require(payee.candidates?.last?.contactID)
        #expect(picked == "brandon-lee")

        let second = requestEvent(
            turn: 2,
            intent: .sendPayment(
                SendPaymentIntent(
                    payee: Person(spoken: "Brandon", contactID: picked), currencyAmount: amount("20", "CNY"))))
        guard case .resolved(let resolved) = process(&stage, second) else { throw TestFailure("expected resolved") }
        #expect(resolved.type == "intent.resolved.v1")
        let final = try resolved.decodeData(as: IntentResolutionReport.self)
        guard case .sendPayment(let payment) = final.intent else { throw TestFailure("kind changed") }
        #expect(payment.payee?.contactID == "brandon-lee")
        #expect(payment.currencyAmount == amount("20.00", "CNY"))

        // Redelivery of either turn, and a later stray turn, change nothing.
        for event in [first, second, requestEvent(turn: 3, intent: first.dataIntent)] {
            guard case .ignored(let reason) = process(&stage, event) else {
                throw TestFailure("turn resolved twice")
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test(
        "a prompt asks in the request's locale, with the question's key and arguments beside the words",
        arguments: [
            ("ru-RU", "Кого вы имеете в виду: 1) Brandon Smith или 2) Brandon Lee?"),
            ("zh-Hans-CN", "你指的是哪一位：1) Brandon Smith或2) Brandon Lee？"),
            (nil, "Which one do you mean: 1) Brandon Smith or 2) Brandon Lee?"),
        ])
    func promptInLocale(_ locale: String?, _ expected: String) throws {
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        var request = requestEvent(
            turn: 1,
            intent: .sendPayment(
                SendPaymentIntent(payee: Person(spoken: "Brandon"), currencyAmount: amount("20", "CNY"))))
        if let locale { try request.extensions.set("locale", .string(locale)) }
        guard case .prompt(let prompt) = process(&stage, request) else { throw TestFailure("expected a prompt") }
        let payee = try #require(parameter(try prompt.decodeData(as: IntentResolutionReport.self), "payee"))
        #expect(payee.message == expected)
        #expect(payee.messageKey == .promptWhich)
        #expect(payee.messageArguments == ["choices": .choices(["1) Brandon Smith", "2) Brandon Lee"])])
        // The amount resolved: nothing to ask, nothing worded.
        let amount = try #require(parameter(try prompt.decodeData(as: IntentResolutionReport.self), "currencyAmount"))
        #expect(amount.messageKey == nil && amount.message == nil)
    }

    @Test(
        "without a locale on the request, the user's chosen one asks and is stamped on what follows; the request's wins",
        arguments: [
            (nil, "ru-RU", "ru-RU", "Кого вы имеете в виду: 1) Brandon Smith или 2) Brandon Lee?"),
            ("en-US", "ru-RU", nil, "Which one do you mean: 1) Brandon Smith or 2) Brandon Lee?"),
            (nil, "ru_RU; x", nil, "Which one do you mean: 1) Brandon Smith or 2) Brandon Lee?"),
        ])
    func chosenLocale(_ requested: String?, _ chosen: String, _ stamped: String?, _ expected: String) throws {
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        var request = requestEvent(
            turn: 1,
            intent: .sendPayment(
                SendPaymentIntent(payee: Person(spoken: "Brandon"), currencyAmount: amount("20", "CNY"))))
        if let requested { try request.extensions.set("locale", .string(requested)) }
        let output = stage.process(
            key: "u1", value: request.encoded(), now: fixedNow,
            settings: { $0 == "u1" ? UserSettings(locale: chosen) : nil },
            contacts: { _ in sampleBook })
        guard case .prompt(let prompt) = output else { throw TestFailure("expected a prompt") }
        let payee = try #require(parameter(try prompt.decodeData(as: IntentResolutionReport.self), "payee"))
        #expect(payee.message == expected)
        // The request's own locale travels as it was; a chosen one is added; a malformed one never.
        #expect(prompt.extensions["locale"] == (stamped ?? requested).map(JSONValue.string))
    }

    @Test("with keys configured, only requests signed by their source's key are resolved")
    func authentication() throws {
        let key = Array(repeating: UInt8(1), count: 32)
        let authenticator = EventAuthenticator(keys: ["/voice/test": key])
        var stage = ResolveStage(resolver: IntentResolver(), authenticator: authenticator)
        let event = requestEvent(
            turn: 1, intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "x")))
        func run(_ signature: EventSignature?) -> ResolveStage.Output {
            stage.process(key: "u1", value: event.encoded(), signature: signature, now: fixedNow) { _ in sampleBook }
        }
        guard case .rejected(let unsigned) = run(nil) else { throw TestFailure("unsigned request accepted") }
        #expect(unsigned.reason == .unauthenticated)
        let other = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(2), count: 32)])
        guard case .rejected(let forged) = run(other.signature(for: event)) else {
            throw TestFailure("forged request accepted")
        }
        #expect(forged.reason == .unauthenticated)
        guard case .resolved = run(authenticator.signature(for: event)) else {
            throw TestFailure("signed request refused")
        }
    }

    @Test(
        "requests dated outside the freshness window are refused as stale, whatever their signature",
        arguments: [
            (-86_400.0, false), (-301.0, false), (-299.0, true), (29.0, true), (31.0, false), (86_400.0, false),
        ])
    func freshness(_ offset: Double, _ accepted: Bool) throws {
        var stage = ResolveStage(resolver: IntentResolver())
        let event = requestEvent(
            turn: 1, intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "x")))
        // The request is dated `offset` seconds from the worker's clock.
        let output = stage.process(key: "u1", value: event.encoded(), now: fixedNow.addingTimeInterval(-offset)) {
            _ in sampleBook
        }
        switch output {
        case .rejected(let error):
            #expect(!accepted, "refused: \(error)")
            #expect(error.reason == .stale)
            #expect(error.field == "$.time")
        case .resolved(let resolved):
            #expect(accepted)
            #expect(resolved.time == event.time, "dated with the request's time, not the clock's")
        default:
            Issue.record("unexpected \(output)")
        }
    }

    @Test("a caller's handle that is not the matched contact's is refused; the contact's handle is used otherwise")
    func payeeHandleSwap() throws {
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        func resolve(_ payee: Person, id: String) throws -> ResolveStage.Output {
            let event = requestEvent(
                intentID: id, turn: 1,
                intent: .sendPayment(SendPaymentIntent(payee: payee, currencyAmount: amount("200", "CNY"))))
            return process(&stage, event)
        }
        guard case .prompt(let prompt) = try resolve(Person(spoken: "小明", handle: "mallory@evil.example"), id: "swap")
        else { throw TestFailure("a swapped handle resolved") }
        let payee = try #require(parameter(try prompt.decodeData(as: IntentResolutionReport.self), "payee"))
        #expect(payee.outcome == .unsupported)
        #expect(payee.reason == "handleNotOfContact")
        // By contact id with a foreign handle: refused too.
        guard case .prompt = try resolve(Person(handle: "mallory@evil.example", contactID: "xiaoming"), id: "swap-2")
        else { throw TestFailure("a swapped handle resolved by contact id") }
        // The contact's own handle, written differently, resolves to the contact's handle.
        guard case .resolved(let resolved) = try resolve(Person(spoken: "小明", handle: "+8613800000001"), id: "own")
        else { throw TestFailure("the contact's own handle was refused") }
        guard case .sendPayment(let payment) = try resolved.decodeData(as: IntentResolutionReport.self).intent else {
            throw TestFailure("kind changed")
        }
        #expect(payment.payee?.handle == "+86 138 0000 0001")
        // No handle given: the contact's.
        guard case .resolved(let plain) = try resolve(Person(spoken: "小明"), id: "plain"),
            case .sendPayment(let plainPayment) = try plain.decodeData(as: IntentResolutionReport.self).intent
        else { throw TestFailure("expected resolved") }
        #expect(plainPayment.payee?.handle == "+86 138 0000 0001")
    }

    @Test("derived event ids: processing the same turn again (e.g. after a restart) gives the same id")
    func deterministicIDs() throws {
        let event = requestEvent(
            turn: 1, intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "hi")))
        var first = ResolveStage(resolver: IntentResolver())
        var second = ResolveStage(resolver: IntentResolver())
        guard case .resolved(let a) = process(&first, event), case .resolved(let b) = process(&second, event) else {
            throw TestFailure("expected resolved twice")
        }
        #expect(a.id == b.id)
        #expect(a.encoded() == b.encoded())
    }

    @Test("bad input is rejected with the machine-readable reason and the field", arguments: BadInput.all)
    func rejects(_ input: BadInput) throws {
        var stage = ResolveStage(resolver: IntentResolver(), maximumEventBytes: 4096)
        let error: EventDecodingError
        switch process(&stage, bytes: input.bytes, key: input.key) {
        case .rejected(let rejected): error = rejected
        // Dead-lettered alike; one that would start its intent ends it too (RefusedRequestTests).
        case .refused(let refused, _): error = refused
        default: throw TestFailure("accepted \(input.name)")
        }
        #expect(error.reason == input.reason)
        if let field = input.field { #expect(error.field == field) }
    }
}

extension EventEnvelope {
    /// The intent of a request event, for building later turns in tests.
    var dataIntent: Intent { (try? decodeData(as: IntentRequested.self).intent) ?? .searchForMessages(.init()) }
}

struct BadInput: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var key: String? = "u1"
    var reason: EventDecodingError.Reason
    var field: String?
    var testDescription: String { name }

    static func request(editing edit: (inout [String: Any]) -> Void) -> [UInt8] {
        let event = requestEvent(turn: 1, intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")])))
        var object = (try? JSONSerialization.jsonObject(with: Data(event.encoded()))) as? [String: Any] ?? [:]
        edit(&object)
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    static func editData(_ edit: @escaping (inout [String: Any]) -> Void) -> [UInt8] {
        request { object in
            var data = object["data"] as? [String: Any] ?? [:]
            edit(&data)
            object["data"] = data
        }
    }

    static let all: [BadInput] = [
        BadInput(name: "not JSON", bytes: Array("hello".utf8), reason: .unparseable),
        BadInput(name: "empty value", bytes: [], reason: .unparseable),
        BadInput(name: "oversized", bytes: Array(repeating: UInt8(ascii: " "), count: 5000), reason: .oversized),
        BadInput(
            name: "another event type", bytes: request { $0["type"] = "intent.smoke.ping.v1" }, reason: .unknownType),
        BadInput(
            name: "no intent id", bytes: request { $0["intentid"] = nil }, reason: .schemaInvalid, field: "$.intentid"),
        BadInput(
            name: "key is not the user id", bytes: request { _ in }, key: "someone-else", reason: .schemaInvalid,
            field: "key"),
        BadInput(name: "turn 0", bytes: editData { $0["turn"] = 0 }, reason: .schemaInvalid),
        BadInput(
            name: "unknown intent kind",
            bytes: editData { $0["intent"] = ["kind": "orderPizza"] }, reason: .schemaInvalid),
        BadInput(
            name: "amount as a JSON number",
            bytes: editData {
                $0["intent"] = ["kind": "sendPayment", "currencyAmount": ["amount": 100.5, "currency": "CNY"]]
            }, reason: .schemaInvalid),
        BadInput(
            name: "misspelled field (contactId)",
            bytes: editData {
                $0["intent"] = ["kind": "sendPayment", "payee": ["spoken": "Bob", "contactId": "robert"]]
            }, reason: .schemaInvalid, field: "$.data.intent.payee.contactId"),
        BadInput(
            name: "unknown attribute value",
            bytes: editData {
                $0["intent"] = ["kind": "setMessageAttribute", "messageIDs": ["m"], "attribute": "starred"]
            },
            reason: .schemaInvalid),
    ]
}
