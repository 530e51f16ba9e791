import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Logging
import PipelineTestSupport
import PipelineTopics
import ServiceLifecycle
import Testing

/// The resolve worker against a real local broker: contacts and intents in,
/// prompts, resolved intents and dead letters out.
@Suite("intent-resolve against a local broker", .heavyTimeLimit(minutes: 5))
struct ResolveWorkerTests {
    static let contacts: [Contact] = [
        Contact(id: "xiaoming", displayName: "小明", interactionCount: 12),
        Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙"),
        Contact(id: "brandon-lee", displayName: "Brandon Lee", interactionCount: 2),
        Contact(id: "brandon-smith", displayName: "Brandon Smith", interactionCount: 40),
        Contact(id: "zelda", displayName: "Zelda Fitzgerald"),
    ]

    @Test(
        "a whole disambiguation round trip, direct resolution, deleted contacts, and a restart that rebuilds contacts")
    func roundTrip() async throws {
        try await withPipeline { pipeline in
            try await pipeline.publishContacts(Self.contacts, user: "u1")
            try await pipeline.deleteContact("zelda", user: "u1")
            try await pipeline.startWorker()

            // Turn 1: "pay Brandon 20 CNY" needs the user; "send 100 CNY to 孙波" does not.
            try await pipeline.request(
                "pay-brandon", turn: 1,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "Brandon"), currencyAmount: money("20", "CNY"))))
            try await pipeline.request(
                "pay-sunbo", turn: 1,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("100", "CNY"))))
            let prompt = try await pipeline.output(for: "pay-brandon", turn: 1)
            #expect(prompt.type == IntentResolutionReport.promptType)
            let asked = try prompt.decodeData(as: IntentResolutionReport.self)
            let payee = try #require(asked.parameters.first { $0.parameter == "payee" })
            #expect(payee.outcome == .disambiguation)
            #expect(payee.candidates?.map(\.contactID) == ["brandon-smith", "brandon-lee"])
            let direct = try await pipeline.output(for: "pay-sunbo", turn: 1)
            #expect(direct.type == IntentResolutionReport.resolvedType)
            #expect(try payeeID(direct) == "sunbo")

            // Turn 2: the voice service re-sends with the user's pick.
            try await pipeline.request(
                "pay-brandon", turn: 2,
                .sendPayment(
                    SendPaymentIntent(
                        payee: Person(spoken: "Brandon", contactID: "brandon-lee"), currencyAmount: money("20", "CNY")))
            )
            let resolved = try await pipeline.output(for: "pay-brandon", turn: 2)
            #expect(resolved.type == IntentResolutionReport.resolvedType)
            #expect(resolved.causationID == pipeline.requestID("pay-brandon", turn: 2))
            #expect(try payeeID(resolved) == "brandon-lee")

            // Repeated and older turns are ignored: nothing comes out for them
            // before the output of a later request of the same user (same partition, in order).
            try await pipeline.request(
                "pay-brandon", turn: 2,
                .sendPayment(
                    SendPaymentIntent(payee: Person(contactID: "brandon-lee"), currencyAmount: money("20", "CNY"))))
            try await pipeline.request(
                "pay-brandon", turn: 1,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "Brandon"), currencyAmount: money("20", "CNY"))))
            // A deleted contact is gone.
            try await pipeline.request(
                "msg-zelda", turn: 1,
                .sendMessage(SendMessageIntent(recipients: [Person(spoken: "Zelda")], content: "hi")))
            let zelda = try await pipeline.output(for: "msg-zelda", turn: 1)
            let recipient = try zelda.decodeData(as: IntentResolutionReport.self).parameters.first {
                $0.parameter == "recipients[0]"
            }
            #expect(recipient?.outcome == .unsupported)
            #expect(recipient?.reason == "noContactFound")
            #expect(pipeline.outputs(for: "pay-brandon").count == 2, "a repeated turn produced output")

            // Restart: a new instance rebuilds the contacts from the topic and
            // continues after the committed offsets (no output twice).
            try await pipeline.stopWorker()
            try await pipeline.startWorker()
            try await pipeline.request(
                "msg-xiaoming", turn: 1,
                .sendMessage(SendMessageIntent(recipients: [Person(spoken: "Xiao Ming")], content: "晚上好")))
            let afterRestart = try await pipeline.output(for: "msg-xiaoming", turn: 1)
            #expect(afterRestart.type == IntentResolutionReport.resolvedType)
            let report = try afterRestart.decodeData(as: IntentResolutionReport.self)
            guard case .sendMessage(let message) = report.intent else { throw Failure("kind changed") }
            #expect(message.recipients.first?.contactID == "xiaoming")
            #expect(pipeline.outputs(for: "pay-brandon").count == 2)
            #expect(pipeline.outputs(for: "pay-sunbo").count == 1)
            try await pipeline.stopWorker()
        }
    }

    @Test("bad input goes to the dead-letter topic with a machine-readable reason, and the worker keeps going")
    func deadLetters() async throws {
        try await withPipeline { pipeline in
            try await pipeline.publishContacts(Self.contacts, user: "u2")
            // A bad contact record is parked too, and does not stop the load.
            try await pipeline.sendRaw(
                topic: pipeline.topics.contacts, key: Array("not-a-contact-key".utf8), value: Array("{}".utf8))
            // A contacts service's signed contact whose id is past the 256 characters a turn may
            // name: offered as a candidate, the voice service's next turn naming it would be
            // refused, so the contact is refused instead (attack 50).
            let longID = String(repeating: "c", count: ContactRecord.Limits.identifier + 1)
            try await pipeline.publishContacts([Contact(id: longID, displayName: "小明")], user: "u2")
            try await pipeline.startWorker()

            let validRequest = pipeline.requestEvent(
                "ok", user: "u2", turn: 1,
                .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "hi"))
            )
            // A request of its own intent: it ends that intent (a final failure response), and
            // would end "ok" too if it shared its id.
            var unknownField = validRequest
            unknownField.intentID = "bad-fields"
            unknownField.data = .object([
                "turn": .integer(1),
                "intent": .object(["kind": .string("sendMessage"), "recipients": .array([]), "colour": .string("red")]),
            ])
            var otherType = validRequest
            otherType.type = "intent.smoke.ping.v1"
            // A spoken name past the schema's 256 characters: the resolver's work grows with its
            // words squared (15 KB of "al al ..." took a gigabyte and crashed the worker, again
            // after each restart), so it is refused before anything resolves it.
            let longName = pipeline.requestEvent(
                "long-name", user: "u2", turn: 1,
                .searchForMessages(
                    SearchForMessagesIntent(senders: [Person(spoken: String(repeating: "al ", count: 200))])))
            let bad: [(String, [UInt8])] = [
                ("unparseable", Array("{not json".utf8)),
                ("unknown_type", otherType.encoded()),
                ("oversized", Array(repeating: UInt8(ascii: "x"), count: EventEnvelope.defaultMaximumBytes + 1)),
                ("schema_invalid", unknownField.encoded()),
                ("schema_invalid", longName.encoded()),
            ]
            for (_, value) in bad {
                try await pipeline.sendRaw(topic: pipeline.topics.requested, key: Array("u2".utf8), value: value)
            }
            try await pipeline.request(event: validRequest)
            // Every bad record comes before the good one on the same partition:
            // once its output is there, the worker went past all of them.
            let good = try await pipeline.output(for: "ok", turn: 1)
            #expect(good.type == IntentResolutionReport.resolvedType)
            let letters = try await pipeline.deadLetters(count: bad.count + 2)
            let fromRequests = letters.filter { $0.header(DeadLetter.topicHeader) == pipeline.topics.requested }
            #expect(fromRequests.map { $0.header(DeadLetter.reasonHeader) } == bad.map(\.0))
            #expect(fromRequests.map(\.value) == bad.map { Optional($0.1) }, "the original bytes are kept")
            #expect(fromRequests.allSatisfy { $0.header(DeadLetter.workerHeader) == pipeline.groupID })
            #expect(
                fromRequests.suffix(2).map { $0.header(DeadLetter.fieldHeader) }
                    == ["$.data.intent.colour", "$.data.intent.senders[0].spoken"])
            let fromContacts = letters.filter { $0.header(DeadLetter.topicHeader) == pipeline.topics.contacts }
            #expect(fromContacts.map { $0.header(DeadLetter.reasonHeader) } == ["schema_invalid", "schema_invalid"])
            #expect(fromContacts.compactMap { $0.header(DeadLetter.fieldHeader) }.contains("key[1]"))
            // The malformed request started an intent: the voice service hears it ended, and why.
            let refused = try await pipeline.event(for: "bad-fields", type: IntentResponse.type)
            let response = try refused.decodeData(as: IntentResponse.self)
            #expect(response.code == .failure && response.reason == "schema_invalid" && response.kind == .sendMessage)
            #expect(refused.source == "/workers/resolve")
            try await pipeline.stopWorker()
        }
    }
}

func payeeID(_ event: EventEnvelope) throws -> String? {
    guard case .sendPayment(let payment) = try event.decodeData(as: IntentResolutionReport.self).intent else {
        throw Failure("not a payment")
    }
    return payment.payee?.contactID
}

extension KafkaConsumerMessage {
    func header(_ key: String) -> String? { headers.last { $0.key == key }?.stringValue }
}
