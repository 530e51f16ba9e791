import AppStateService
import BrokerTestSupport
import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import PipelineTestSupport
import Synchronization
import Testing
import VoiceSimulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ProcessLevel {
    /// The whole pipeline, every executable as its own OS process (resolve,
    /// confirm, payments, handle and the app-state service), driven by the
    /// simulated voice service; then the app state the page would show, over
    /// HTTP and in headless Chromium.
    @Suite("End to end: every executable, the app state and the web page", .heavyTimeLimit(minutes: 10))
    struct EndToEndTests {
        @Test("a payment and a message made through the pipeline show in the app state and on the web page")
        func endToEnd() async throws {
            try await withPipeline { pipeline in
                try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
                try await pipeline.enroll("alice")
                try await pipeline.openAccount("sunbo", handle: "sunbo@example.cn")
                try await pipeline.publishContacts(
                    [
                        Contact(
                            id: "c-sb", displayName: "孙波", givenName: "波", familyName: "孙",
                            handles: ["sunbo@example.cn"]),
                        Contact(id: "c-xm", displayName: "小明", handles: ["+86 138"]),
                    ], user: "alice")
                let appKey = Array(repeating: UInt8(0x61), count: 32)
                let appState = try AppStateLaunch(key: appKey)
                let workers = try WorkerProcesses(
                    broker: pipeline.broker, topics: pipeline.topics,
                    workers: ["resolve", "confirm", "payments", "handle", "appstate"],
                    extraEnvironment: appState.environment)
                let app = AppStateClient(port: appState.port, tokens: UserTokens(key: appKey))
                try await app.waitUntilReady()

                let simulator = try VoiceSimulator(
                    configuration: clientConfiguration(pipeline.broker), topics: pipeline.topics,
                    authenticator: LoadFixture.authenticator, source: "/voice/load", logger: testLogger)
                let outcome = try await simulator.play(
                    json: #"""
                        {"steps": [
                          {"user": "alice", "say": "Send 100 yuan to 孙波",
                           "intent": {"kind": "sendPayment", "payee": {"spoken": "Sun Bo"}, "currencyAmount": {"amount": "100", "currency": "CNY"}},
                           "answers": [{"confirm": true}], "expect": "success"},
                          {"user": "alice", "say": "Tell 小明 I'm on my way",
                           "intent": {"kind": "sendMessage", "recipients": [{"spoken": "xiaoming"}], "content": "在路上"},
                           "expect": "success"}
                        ]}
                        """#)
                #expect(outcome.failures == [])

                // The app state, as background refresh reads it.
                let state = try await app.state(of: "alice") { state in
                    (state["intents"] as? [[String: Any]] ?? []).count >= 2
                        && (state["messages"] as? [[String: Any]] ?? []).count >= 1
                        && (state["payments"] as? [[String: Any]] ?? []).contains { $0["status"] as? String == "sent" }
                        && (state["payments"] as? [[String: Any]] ?? []).contains {
                            $0["counterpartyName"] as? String == "孙波"
                        }
                }
                let payments = state["payments"] as? [[String: Any]] ?? []
                #expect(payments.count == 1)
                #expect(payments.first?["amount"] as? String == "100 CNY")
                // Named on the server from Alice's contact; the payee's user id is not served.
                #expect(payments.first?["counterpartyContact"] as? String == "c-sb")
                #expect(payments.first?["counterparty"] == nil)
                #expect(payments.first?["status"] as? String == "sent")
                #expect((state["balances"] as? [[String: Any]])?.first?["available"] as? String == "900")
                #expect((state["messages"] as? [[String: Any]])?.first?["content"] as? String == "在路上")
                // Contacts by id and name: whether a contact's handle has an account (孙波's has,
                // 小明's has not) is not served.
                let contacts = state["contacts"] as? [[String: Any]] ?? []
                #expect(contacts.first { $0["id"] as? String == "c-sb" }?["name"] as? String == "孙波")
                #expect(contacts.map { Set($0.keys) } == [["id", "name"], ["id", "name"]])
                let sunbo = try await app.state(of: "sunbo") { ($0["payments"] as? [[String: Any]] ?? []).count == 1 }
                #expect((sunbo["payments"] as? [[String: Any]])?.first?["direction"] as? String == "received")

                // A signed request that fails validation (an amount as a JSON number) ends its intent
                // with the resolve stage's failure, which the app state shows by its view signature.
                let malformed = EventEnvelope(
                    id: "req-malformed", source: "/voice/load", type: IntentRequested.type, time: Date(),
                    dataSchema: IntentRequested.dataSchema, userID: "alice", conversationID: "conv-malformed",
                    intentID: "malformed",
                    payload: JSONValue.object([
                        "turn": .integer(1),
                        "intent": .object([
                            "kind": .string("sendPayment"), "payee": .object(["spoken": .string("孙波")]),
                            "currencyAmount": .object(["amount": .number(5.5), "currency": .string("CNY")]),
                        ]),
                    ]))
                try await pipeline.publish(
                    malformed, to: pipeline.topics.requested, signedWith: LoadFixture.authenticator)
                let refused = try await app.state(of: "alice") { state in
                    (state["intents"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == "malformed" }
                }
                let refusal = (refused["intents"] as? [[String: Any]] ?? []).first {
                    $0["id"] as? String == "malformed"
                }
                #expect(refusal?["code"] as? String == "failure", "\(String(describing: refusal))")
                #expect(refusal?["reason"] as? String == "schema_invalid", "\(String(describing: refusal))")

                // Credentials: another user's token is refused; no token is refused; changes since now: none.
                #expect(try await app.status("/api/users/alice/state", token: app.tokens.token(for: "sunbo")) == 403)
                #expect(try await app.status("/api/users/alice/state", token: nil) == 401)
                let cursor = state["cursor"] as? Int ?? 0
                #expect(
                    try await app.status(
                        "/api/users/alice/changes?since=\(cursor)", token: app.tokens.token(for: "alice"))
                        == 200)
                #expect(try await app.status("/health", token: nil) == 200)

                // The web page in headless Chromium: once it is open and following the app state,
                // Alice pays 孙波 again through the whole pipeline, and the payment appears on the
                // page without a reload, under the name her contacts give him.
                let screenshot = try #require(ToolLocator.projectRoot()).appendingPathComponent(
                    ".build/screenshots/end-to-end-live.png")
                let (status, page) = try await BrowserLiveCheck.run(
                    url: app.pageURL(for: "alice") + "&locale=en-US&tz=UTC", expecting: "CN¥25.00",
                    screenshot: screenshot
                ) {
                    let again = try await simulator.play(
                        json: #"""
                            {"steps": [
                              {"user": "alice", "say": "Send 25 yuan to 孙波",
                               "intent": {"kind": "sendPayment", "payee": {"spoken": "孙波"}, "currencyAmount": {"amount": "25", "currency": "CNY"}},
                               "answers": [{"confirm": true}], "expect": "success"}
                            ]}
                            """#)
                    #expect(again.failures == [])
                }
                await simulator.close()
                #expect(status == 0, "\(page)")
                #expect(page.hasPrefix("live\nseen\n"), "\(page)")
                #expect(page.contains("payment to 孙波"), "\(page)")
                #expect(page.contains("CN¥100.00"), "\(page)")
                #expect(page.contains("在路上"), "\(page)")
                #expect(!page.contains("sunbo"), "people by name, not user id: \(page)")

                await workers.stopAll()
                try? FileManager.default.removeItem(at: appState.directory)
            }
        }
    }
}
