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
import Synchronization
import Testing
import VoiceSimulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The whole pipeline, every executable as its own OS process (resolve,
/// confirm, payments, handle and the app-state service), driven by the
/// simulated voice service; then the app state the page would show, over
/// HTTP and in headless Chromium.
@Suite("End to end: every executable, the app state and the web page", .timeLimit(.minutes(10)))
struct EndToEndTests {
    @Test("a payment and a message made through the pipeline show in the app state and on the web page")
    func endToEnd() async throws {
        try await withPipeline { pipeline in
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
            try await pipeline.openAccount("sunbo", handle: "sunbo@example.cn")
            try await pipeline.publishContacts(
                [
                    Contact(
                        id: "c-sb", displayName: "孙波", givenName: "波", familyName: "孙", handles: ["sunbo@example.cn"]),
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
                authenticator: CrashRecoveryTests.authenticator, source: "/voice/load", logger: testLogger)
            let outcome = try await simulator.play(
                VoiceScript.load(
                    Data(
                        #"""
                        {"steps": [
                          {"user": "alice", "say": "Send 100 yuan to 孙波",
                           "intent": {"kind": "sendPayment", "payee": {"spoken": "Sun Bo"}, "currencyAmount": {"amount": "100", "currency": "CNY"}},
                           "answers": [{"confirm": true}], "expect": "success"},
                          {"user": "alice", "say": "Tell 小明 I'm on my way",
                           "intent": {"kind": "sendMessage", "recipients": [{"spoken": "xiaoming"}], "content": "在路上"},
                           "expect": "success"}
                        ]}
                        """#.utf8)))
            await simulator.close()
            #expect(outcome.failures == [])

            // The app state, as background refresh reads it.
            let state = try await app.state(of: "alice") { state in
                (state["intents"] as? [[String: Any]] ?? []).count >= 2
                    && (state["messages"] as? [[String: Any]] ?? []).count >= 1
                    && (state["payments"] as? [[String: Any]] ?? []).contains { $0["status"] as? String == "sent" }
            }
            let payments = state["payments"] as? [[String: Any]] ?? []
            #expect(payments.count == 1)
            #expect(payments.first?["amount"] as? String == "100 CNY")
            #expect(payments.first?["counterparty"] as? String == "sunbo")
            #expect(payments.first?["status"] as? String == "sent")
            #expect((state["balances"] as? [[String: Any]])?.first?["available"] as? String == "900")
            #expect((state["messages"] as? [[String: Any]])?.first?["content"] as? String == "在路上")
            let sunbo = try await app.state(of: "sunbo") { ($0["payments"] as? [[String: Any]] ?? []).count == 1 }
            #expect((sunbo["payments"] as? [[String: Any]])?.first?["direction"] as? String == "received")

            // Credentials: another user's token is refused; no token is refused; changes since now: none.
            #expect(try await app.status("/api/users/alice/state", token: app.tokens.token(for: "sunbo")) == 403)
            #expect(try await app.status("/api/users/alice/state", token: nil) == 401)
            let cursor = state["cursor"] as? Int ?? 0
            #expect(
                try await app.status("/api/users/alice/changes?since=\(cursor)", token: app.tokens.token(for: "alice"))
                    == 200)
            #expect(try await app.status("/health", token: nil) == 200)

            // The web page, in headless Chromium, shows the payment.
            // wait=0: render once; a long poll would keep headless Chromium's virtual clock from running out.
            let dom = try await Chromium.dumpDOM(url: app.pageURL(for: "alice", wait: 0))
            #expect(dom.contains("to sunbo"), "\(dom.prefix(3000))")
            #expect(dom.contains("100 CNY"))
            #expect(dom.contains("在路上"))

            await workers.stopAll()
            try? FileManager.default.removeItem(at: appState.directory)
        }
    }
}

/// Headless Chromium (Debian `chromium`), which runs the page's JavaScript before printing the DOM.
enum Chromium {
    static func dumpDOM(url: String) async throws -> String {
        let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let executable else { throw Failure("chromium is not installed (make setup installs it)") }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("chromium"))
        defer { try? FileManager.default.removeItem(at: profile) }
        // A hung browser must fail the test, not stall it.
        return try await ManagedProcess.run(
            name: "chromium", executable: executable,
            arguments: [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.path)", "--virtual-time-budget=8000", "--dump-dom", url,
            ],
            outputFile: profile.appendingPathComponent("dom.html"), timeout: .seconds(60)
        ).output
    }
}
