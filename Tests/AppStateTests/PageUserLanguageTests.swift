import AppState
import AppStateService
import BrokerTestSupport
import Foundation
import IntentEvents
import IntentResolution
import Kafka
import LocalBroker
import OperationsEndpoint
import PipelineTopics
import Telemetry
import Testing

/// The page in the language the user chose (issue 31, point 6: "the user's setting, else the
/// browser's"), end to end: a settings service publishes it to the users' settings topic,
/// signed with its key and its view key; the app state reads the topic by view signature
/// (it holds view keys only, SECURITY.md attack 39) and serves the language with the state;
/// the page, opened in headless Chromium by an English browser, is in Russian. Settings
/// forged for the app state (not view-signed, view-signed with another writer's view key,
/// or from a contacts service) change nothing and are counted.
@Suite(
    "The page in the user's chosen language, from the settings topic, in headless Chromium", .heavyTimeLimit(minutes: 4)
)
struct PageUserLanguageTests {
    /// The settings service: its key (which the resolve worker checks) and its view key (the app state's).
    static let settingsKeys = EventAuthenticator(keys: [
        SigningKey(source: "/settings/app", bytes: Array(repeating: 0x5e, count: 32)),
        SigningKey(source: ViewKey.source(viewing: "/settings/app"), bytes: Array(repeating: 0x5f, count: 32)),
    ])
    /// A contacts service, whose view key the app state holds too (for names).
    static let contactsKeys = EventAuthenticator(keys: [
        SigningKey(source: "/contacts/app", bytes: Array(repeating: 0xc0, count: 32)),
        SigningKey(source: ViewKey.source(viewing: "/contacts/app"), bytes: Array(repeating: 0xc1, count: 32)),
    ])

    @Test("a user whose setting is ru sees Russian with an en browser; forged settings change nothing and are counted")
    func chosenLanguage() async throws {
        try await withBroker { broker in
            let topics = PipelineTopics(prefix: uniqueName("language") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                try await $0.createTopics(topics.specifications(partitions: 1))
            }
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            @Sendable func publish(_ locale: String, version: Int64, as source: String, _ keys: EventAuthenticator)
                async throws
            {
                let event = UserSettingsRecord.event(
                    userID: "alice", settings: UserSettings(locale: locale), version: version, source: source)
                try await producer.sendAll([
                    KafkaProducerMessage(topic: topics.settings, event: event, signedWith: keys)
                ])
            }
            try await publish("ru-RU", version: 1, as: "/settings/app", Self.settingsKeys)

            let store = try AppStateStore(path: ":memory:")
            try await store.apply(paymentEvents[0])
            let metrics = OperationsMetrics()
            let consumer = AppStateConsumer(
                store: store, configuration: clientConfiguration(broker), topics: topics, groupID: uniqueName("app"),
                keys: EventAuthenticator(keys: Self.settingsKeys.viewing.allKeys + Self.contactsKeys.viewing.allKeys),
                sessionTimeout: .seconds(6), logger: testLogger, telemetry: Telemetry(metrics: metrics.factory))
            #expect(consumer.subscribedTopics.contains(topics.settings))
            let running = Task { try await consumer.run() }
            defer { running.cancel() }
            try await Self.language("ru-RU", of: "alice", in: store)

            let screenshot = try Self.screenshot("app-state-user-language")
            try await withAppStateServer(limits: LivePageTests.limits, store: store) { port in
                let (status, output) = try await BrowserLiveCheck.run(
                    url: Self.englishBrowser(port), expecting: "Переведено 100,00", screenshot: screenshot
                ) {
                    // Chinese, at newer versions, forged three ways: signed by the settings service's
                    // key alone (no view signature), view-signed with the contacts service's view key
                    // under the settings service's name, and by a contacts service.
                    let forgedView = EventAuthenticator(
                        keys: Self.settingsKeys.withoutViewKeys.allKeys + [
                            SigningKey(
                                source: ViewKey.source(viewing: "/settings/app"),
                                bytes: Array(repeating: 0xc1, count: 32))
                        ])
                    try await publish("zh-Hans-CN", version: 2, as: "/settings/app", Self.settingsKeys.withoutViewKeys)
                    try await publish("zh-Hans-CN", version: 3, as: "/settings/app", forgedView)
                    try await publish("zh-Hans-CN", version: 4, as: "/contacts/app", Self.contactsKeys)
                    // Then the real service again, on the same partition: once it is applied, the
                    // three before it were read (and refused), and the language is still Russian.
                    try await publish("ru", version: 5, as: "/settings/app", Self.settingsKeys)
                    try await Self.language("ru", of: "alice", in: store)
                    // The payment and its answer, said in Chinese when it was made.
                    for event in paymentEvents.dropFirst() { try await store.apply(event) }
                }
                #expect(status == 0, "\(output)")
                for text in ["Здравствуйте", "Переведено 100,00", "успешно", "Ваши запросы"] {
                    #expect(output.contains(text), "no \(text) in \(output)")
                }
                for other in ["Hello", "What you asked", "你好", "已付款", "Sent CN¥"] {
                    #expect(!output.contains(other), "\(other) in \(output)")
                }
            }
            await producer.shutdown()
            let exposition = String(decoding: metrics.exposition(), as: UTF8.self)
            #expect(
                Self.refused(on: topics.settings, in: exposition) == 3, "three forged settings counted: \(exposition)")
            let alice = try #require(try await store.snapshot(of: "alice").objectValue)
            #expect(alice["settings"] == .array([.object(["id": "language", "locale": "ru"])]))
        }
    }

    @Test("an open page follows the user's language as it changes, and the browser's once it is reset")
    func followsTheSetting() async throws {
        let store = try AppStateStore(path: ":memory:")
        for event in paymentEvents { try await store.apply(event) }
        try await store.apply(settings: .set(userID: "alice", settings: UserSettings(locale: "zh-Hans-CN"), version: 1))
        let screenshot = try Self.screenshot("app-state-user-language-live")
        try await withAppStateServer(limits: LivePageTests.limits, store: store) { port in
            let url = Self.englishBrowser(port)
            // Chinese when live (the check sees no Russian yet), then the user picks Russian.
            let (status, output) = try await BrowserLiveCheck.run(
                url: url, expecting: "Здравствуйте", screenshot: screenshot
            ) {
                try await store.apply(
                    settings: .set(userID: "alice", settings: UserSettings(locale: "ru-RU"), version: 2))
            }
            #expect(status == 0, "\(output)")
            for text in ["Переведено 100,00", "Ваши запросы"] {
                #expect(output.contains(text), "no \(text) in \(output)")
            }
            for other in ["你好", "你的请求", "Hello"] { #expect(!output.contains(other), "\(other) in \(output)") }
            // Reset: back to the browser's language, English.
            let (reset, english) = try await BrowserLiveCheck.run(
                url: url, expecting: "Hello", screenshot: screenshot
            ) {
                try await store.apply(settings: .reset(userID: "alice", version: 3))
            }
            #expect(reset == 0, "\(english)")
            #expect(english.contains("What you asked") && !english.contains("Здравствуйте"), "\(english)")
        }
    }

    /// Alice's page as an English browser opens it (the client's ?locale=, as an iOS client passes its own).
    static func englishBrowser(_ port: Int) -> String {
        "http://127.0.0.1:\(port)/?user=alice&locale=en-US&tz=Europe/Moscow#token=\(testTokens.token(for: "alice"))"
    }

    /// Where a check's screenshot goes: .build/screenshots/NAME.png.
    static func screenshot(_ name: String) throws -> URL {
        try #require(ToolLocator.projectRoot()).appendingPathComponent(".build/screenshots/\(name).png")
    }

    /// Waits (a long poll on the store's change feed, no sleeps) until the user's language is `tag`.
    static func language(_ tag: String, of user: String, in store: AppStateStore) async throws {
        var cursor: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let page = try await store.changes(of: user, since: cursor, waitingUpTo: .seconds(5))
            cursor = page.cursor
            if page.changes.contains(where: { $0.kind == "setting" && $0.item.objectValue?["locale"] == .string(tag) })
            {
                return
            }
        }
        Issue.record("the app state never showed \(user)'s language as \(tag)")
    }

    /// The records of `topic` the app state refused, from its metrics as `/metrics` serves them.
    static func refused(on topic: String, in exposition: String) -> Double {
        exposition.split(separator: "\n")
            .filter { $0.hasPrefix("intent_records_refused_total{") && $0.contains("topic=\"\(topic)\"") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0, +)
    }
}
