import AppState
import BrokerTestSupport
import Foundation
import HTTPServing
import LocalBroker
import Testing

/// The page's sign-in state (issue 31, point 6): opened without a token, or with one the
/// server refuses, it shows a sign-in form in the viewer's language, never the API's raw
/// refusal. Rendered by headless Chromium (`--dump-dom`, after the page's requests settle).
@Suite("The page's sign-in state, in headless Chromium", .heavyTimeLimit(minutes: 3))
struct PageSignInTests {
    /// The page's DOM once its scripts and requests are done.
    static func dom(_ url: String) async throws -> String {
        let chromium = try ToolLocator.executable(named: "chromium")
        let directory = testFileURL(uniqueName("sign-in"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await withHeavySlot {
            let (status, output) = try await runProcess(
                name: "chromium", executable: chromium,
                arguments: [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
                    "--virtual-time-budget=10000", "--dump-dom", url,
                ],
                outputFile: directory.appendingPathComponent("dom"), timeout: .seconds(60))
            #expect(status == 0, "\(output)")
            return output
        }
    }

    @Test("no token: the sign-in form; a refused token: the form again, saying so; neither shows the API's error")
    func signIn() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await withAppStateServer(limits: LivePageTests.limits, store: store) { port in
            let page = "http://127.0.0.1:\(port)/?user=alice"
            let none = try await Self.dom(page + "&locale=ru-RU")
            #expect(none.contains(#"data-signed-in="false""#), "\(none)")
            #expect(none.contains("Введите токен доступа из приложения."), "\(none)")
            #expect(none.contains(#"<p id="sign-in-failed" role="alert" hidden="#), "no failure yet: \(none)")
            let refused = try await Self.dom(page + "&locale=en-US#token=not-a-token")
            #expect(refused.contains(#"data-signed-in="false""#), "\(refused)")
            #expect(
                refused.contains(#"<p id="sign-in-failed" role="alert">That token was not accepted. Try again.</p>"#),
                "\(refused)")
            for raw in ["403", "401", "Forbidden", "Unauthorized", "error"] {
                #expect(!none.contains(">\(raw)") && !refused.contains(">\(raw)"), "\(raw) shown")
            }
        }
    }
}
