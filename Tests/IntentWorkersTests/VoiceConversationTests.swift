import BrokerTestSupport
import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Localization
import Messaging
import Payments
import PipelineTestSupport
import PipelineTopics
import Synchronization
import Testing
import VoiceSimulator

/// The simulated voice service against all four workers: the transcript and
/// the outcome of every scripted step.
@Suite("A scripted voice conversation through every worker", .heavyTimeLimit(minutes: 5))
struct VoiceConversationTests {
    static let voiceKey = Array(repeating: UInt8(0x33), count: 32)

    @Test("disambiguation, confirmation, decline, a tampered confirmation, a slow send, a search")
    func conversation() async throws {
        try await withPipeline { pipeline in
            let authenticator = EventAuthenticator(keys: ["/voice/sim": Self.voiceKey])
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("500", "CNY"))
            try await pipeline.openAccount("lee", handle: "lee@example.com")
            try await pipeline.publishContacts(
                [
                    Contact(id: "c-lee", displayName: "Brandon Lee", handles: ["lee@example.com"], interactionCount: 1),
                    Contact(
                        id: "c-smith", displayName: "Brandon Smith", handles: ["smith@example.com"], interactionCount: 9
                    ),
                    Contact(id: "c-xm", displayName: "小明", handles: ["+86 138"]),
                ], user: "alice")
            let kafka = clientConfiguration(pipeline.broker)
            try await pipeline.start(
                ResolveWorker(
                    configuration: ResolveWorker.Configuration(
                        kafka: kafka, topics: pipeline.topics, groupID: uniqueName("resolve"),
                        resolver: .init(messagingServices: ["sms", "satellite"]),
                        authenticator: authenticator.withTestContacts,
                        keys: testStageKeys, sessionTimeout: .seconds(6), voiceBinding: .optional),
                    logger: testLogger),
                ConfirmWorker(
                    configuration: ConfirmWorker.Configuration(
                        kafka: kafka, topics: pipeline.topics, groupID: uniqueName("confirm"),
                        stage: ConfirmStage(
                            bindingKey: BindingKey(Array(repeating: 2, count: 32)), authenticator: testStageKeys),
                        keys: testStageKeys, sessionTimeout: .seconds(6)),
                    logger: testLogger),
                PaymentsWorker(
                    configuration: PaymentsWorker.Configuration(
                        kafka: kafka, topics: pipeline.topics, groupID: uniqueName("payments"),
                        stage: PaymentsStage(
                            bindingKey: BindingKey(Array(repeating: 2, count: 32)), authenticator: authenticator,
                            stages: testStageKeys),
                        keys: testStageKeys, sessionTimeout: .seconds(6)),
                    logger: testLogger),
                HandleWorker(
                    configuration: HandleWorker.Configuration(
                        kafka: kafka, topics: pipeline.topics, groupID: uniqueName("handle"),
                        stage: HandleStage(authenticator: testStageKeys, slowServices: ["satellite": .seconds(2)]),
                        keys: testStageKeys, sessionTimeout: .seconds(6)),
                    logger: testLogger))

            let script = try VoiceScript.load(
                Data(
                    #"""
                    {"steps": [
                      {"user": "alice", "say": "Pay Brandon 20 yuan",
                       "intent": {"kind": "sendPayment", "payee": {"spoken": "Brandon"}, "currencyAmount": {"amount": "20", "currency": "CNY"}},
                       "answers": [{"pick": 2}, {"confirm": true}], "expect": "success"},
                      {"user": "alice", "say": "Pay Brandon Lee 30 yuan",
                       "intent": {"kind": "sendPayment", "payee": {"spoken": "Brandon Lee"}, "currencyAmount": {"amount": "30", "currency": "CNY"}},
                       "answers": [{"confirm": false}], "expect": "failure", "expectReason": "declinedByUser"},
                      {"user": "alice", "say": "Pay Brandon Lee 40 yuan (a forged confirmation)",
                       "intent": {"kind": "sendPayment", "payee": {"spoken": "Brandon Lee"}, "currencyAmount": {"amount": "40", "currency": "CNY"}},
                       "answers": [{"confirm": true, "tamper": true}], "expect": "failure", "expectReason": "confirmationMismatch"},
                      {"user": "alice", "say": "给Brandon Lee转账", "locale": "zh-Hans-CN",
                       "intent": {"kind": "sendPayment", "payee": {"spoken": "Brandon Lee"}},
                       "answers": [{"value": {"currencyAmount": {"amount": "5", "currency": "CNY"}}}, {"confirm": true}], "expect": "success"},
                      {"user": "alice", "say": "用卫星给小明发消息：到了", "locale": "zh-Hans-CN",
                       "intent": {"kind": "sendMessage", "recipients": [{"spoken": "小明"}], "content": "到了", "serviceName": "satellite"},
                       "expect": "success"},
                      {"user": "alice", "say": "Найди мои сообщения Сяомину", "locale": "ru-RU",
                       "intent": {"kind": "searchForMessages", "keywords": ["到了"]}, "expect": "success"}
                    ]}
                    """#.utf8))
            let lines = Mutex<[String]>([])
            let simulator = try VoiceSimulator(
                configuration: kafka, topics: pipeline.topics, authenticator: authenticator, source: "/voice/sim",
                logger: testLogger, print: { line in lines.withLock { $0.append(line) } })
            let outcome = try await simulator.play(script)
            await simulator.close()

            // Unsigned, and signed with another source's key: both dead-lettered as unauthenticated.
            var unsigned = pipeline.requestEvent(
                "unsigned", user: "alice", turn: 1,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "Brandon Lee"), currencyAmount: money("1", "CNY")))
            )
            unsigned.source = "/voice/sim"
            try await pipeline.request(event: unsigned)
            var forged = unsigned
            forged.id = "forged"
            let forger = EventAuthenticator(keys: [unsigned.source: Array(repeating: 9, count: 32)])
            try await pipeline.publish(
                forged, to: pipeline.topics.requested,
                headers: [
                    KafkaHeader(key: EventAuthenticator.signatureHeader, string: forger.signature(for: forged)!.hex)
                ])
            // A locale that is not a BCP 47 tag, from a signed voice service: ignored (English), not
            // handed to ICU, and nothing else changes.
            var hostile = pipeline.requestEvent(
                "hostile-locale", user: "alice", turn: 1, .searchForMessages(SearchForMessagesIntent(keywords: ["到了"])))
            hostile.source = "/voice/sim"
            try hostile.extensions.set(
                UserLocale.attribute, .string("ru_RU\u{0}; ../../etc/" + String(repeating: "x", count: 900)))
            try await pipeline.publish(
                hostile, to: pipeline.topics.requested,
                headers: [
                    KafkaHeader(
                        key: EventAuthenticator.signatureHeader, string: authenticator.signature(for: hostile)!.hex)
                ])
            let hostileResponse = try await pipeline.event(for: "hostile-locale", type: IntentResponse.type)
            #expect(try hostileResponse.decodeData(as: IntentResponse.self).message == "Found 1 message(s).")

            let letters = try await pipeline.deadLetters(count: 2)
            #expect(letters.map { $0.header(DeadLetter.reasonHeader) } == ["unauthenticated", "unauthenticated"])
            #expect(letters.first?.header(DeadLetter.messageHeader) == "the event is not signed")
            #expect(letters.last?.header(DeadLetter.messageHeader) == "the signature does not match the event")
            #expect(pipeline.outputs(for: "unsigned").isEmpty)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            #expect(outcome.failures == [])
            let transcript = lines.withLock { $0 }.joined(separator: "\n")
            #expect(
                transcript.contains("assistant: Which one do you mean: 1) Brandon Smith or 2) Brandon Lee?"),
                "\(transcript)")
            // Completed later by the slow service, still in the sender's language.
            #expect(transcript.contains("assistant: 正在发送… [inProgress]\n  assistant: 完成。 [success]"), "\(transcript)")
            // Each step's answers in the language it was said in (CLDR formats), English without one.
            #expect(transcript.contains("assistant: 向Brandon Lee（lee@example.com）付款¥5.00？"), "\(transcript)")
            #expect(transcript.contains("assistant: 已付款¥5.00。 [success]"), "\(transcript)")
            #expect(transcript.contains("assistant: Найдено сообщений: 1. [success]"), "\(transcript)")
            #expect(transcript.contains("assistant: Sent CN¥20.00. [success]"), "\(transcript)")
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "lee", "CNY") == Money(money("25", "CNY")))
            #expect(ledger.availableBalance(of: "alice", "CNY") == Money(money("475", "CNY")))
        }
    }
}
