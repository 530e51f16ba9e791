import BrokerTestSupport
import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Localization
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Synchronization
import Testing
import VoiceSimulator

/// The user's language from their settings: a request without a locale is answered in
/// the language the user chose, through every stage; only a settings service chooses it.
@Suite("The language a user chose in settings, through the pipeline", .heavyTimeLimit(minutes: 5))
struct UserSettingsTests {
    static let voiceKey = Array(repeating: UInt8(0x35), count: 32)
    static let settingsKeys = EventAuthenticator(keys: ["/settings/test": Array(repeating: UInt8(0x5e), count: 32)])

    @Test(
        "a request without a locale is asked and answered in the user's chosen language; forged settings are dead-lettered"
    )
    func settingsLanguage() async throws {
        try await withPipeline { pipeline in
            let voice = EventAuthenticator(keys: ["/voice/sim": Self.voiceKey])
            try await pipeline.openAccount("boris", handle: "+7 900 000 0001", deposit: money("1000", "RUB"))
            try await pipeline.openAccount("yulia", handle: "yulia@example.ru")
            try await pipeline.publishContacts(
                [Contact(id: "c-yu", displayName: "Юлия Щукина", nickname: "Юля", handles: ["yulia@example.ru"])],
                user: "boris")
            let settings = pipeline.topics.settings
            let partitions = PipelineHarness.partitions
            // Boris chose Russian in the app.
            _ = try await pipeline.send(
                .userSettings(
                    UserSettings(locale: "ru-RU"), of: "boris", version: 1, topic: settings, partitions: partitions,
                    source: "/settings/test", signedWith: Self.settingsKeys))
            // Attacks, after it: a voice service's key claiming to be settings, a settings source
            // with a key it does not have, and a settings service's malformed tag. None applies.
            _ = try await pipeline.send(
                .userSettings(
                    UserSettings(locale: "zh-Hans-CN"), of: "boris", version: 2, topic: settings,
                    partitions: partitions,
                    source: "/voice/sim", signedWith: voice))
            _ = try await pipeline.send(
                .userSettings(
                    UserSettings(locale: "en-US"), of: "boris", version: 3, topic: settings, partitions: partitions,
                    source: "/settings/test",
                    signedWith: EventAuthenticator(keys: ["/settings/test": Array(repeating: 1, count: 32)])))
            _ = try await pipeline.send(
                .userSettings(
                    UserSettings(locale: "ru_RU; rm -rf"), of: "boris", version: 4, topic: settings,
                    partitions: partitions,
                    source: "/settings/test", signedWith: Self.settingsKeys))

            let kafka = clientConfiguration(pipeline.broker)
            try await pipeline.startStages(
                voice: voice, bindingKey: BindingKey(Array(repeating: 3, count: 32)), settings: Self.settingsKeys)

            // No locale on the request: the voice service leaves the language to the settings.
            let lines = Mutex<[String]>([])
            let simulator = try VoiceSimulator(
                configuration: kafka, topics: pipeline.topics, authenticator: voice, source: "/voice/sim",
                logger: testLogger, print: { line in lines.withLock { $0.append(line) } })
            let outcome = try await simulator.play(
                json: #"""
                    {"steps": [
                      {"user": "boris", "say": "Pay Yulia 100 rubles",
                       "intent": {"kind": "sendPayment", "payee": {"spoken": "Юля"}, "currencyAmount": {"amount": "100", "currency": "RUB"}},
                       "answers": [{"confirm": true}], "expect": "success"},
                      {"user": "boris", "say": "Pay someone 5 rubles",
                       "intent": {"kind": "sendPayment", "payee": {"spoken": "Zebediah"}, "currencyAmount": {"amount": "5", "currency": "RUB"}},
                       "answers": [], "expect": "success"}
                    ]}
                    """#)
            await simulator.close()
            let letters = try await pipeline.deadLetters(count: 3)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            let transcript = lines.withLock { $0 }.joined(separator: "\n")
            // Asked, confirmed and answered in Russian, amounts as CLDR writes rubles in Russian
            // (a no-break space before the sign).
            #expect(
                transcript.contains("assistant: Перевести 100,00\u{A0}₽? Получатель: Юлия Щукина"), "\(transcript)")
            #expect(transcript.contains("boris: да"), "\(transcript)")
            #expect(transcript.contains("assistant: Переведено 100,00\u{A0}₽. [success]"), "\(transcript)")
            // The resolve stage's own question, in Russian too.
            #expect(
                transcript.contains("assistant: Не нашёл такого человека в контактах. Кого вы имеете в виду?"),
                "\(transcript)")
            // The second step asks and has no answer left: the only expected failure.
            #expect(outcome.failures.count == 1, "\(outcome.failures)")
            #expect(outcome.failures.first?.contains("the script has no answer left") == true)
            // The three bad settings records went to the dead-letter topic, each with its reason.
            #expect(
                letters.map { $0.header(DeadLetter.reasonHeader) }
                    == ["wrong_producer", "unauthenticated", "schema_invalid"], "\(letters.map(\.topic))")
            #expect(letters.allSatisfy { $0.header(DeadLetter.topicHeader) == settings })
        }
    }
}
