import AppState
import AppStateService
import Foundation
import HTTPServing
import LocalBroker
import Testing

/// The web page in a real browser: headless Chromium driven over the DevTools protocol
/// (`scripts/browser_live_check.py`), against the server as `intent-appstate` runs it.
@Suite("The web page follows the app state live, in headless Chromium", .timeLimit(.minutes(3)))
struct LivePageTests {
    static let limits = HTTPServerLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 64)

    @Test("a payment made while the page is open appears on it without a reload; a screenshot goes under .build/")
    func paymentAppearsLive() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(paymentEvents[0])  // the deposit: the page opens with a balance and no payment
        let limiter = LongPollLimiter()
        let root = try #require(ToolLocator.projectRoot(), "run from the checkout")
        let script = root.appendingPathComponent("scripts/browser_live_check.py").path
        let python = try ToolLocator.executable(named: "python3")
        let screenshot = root.appendingPathComponent(".build/screenshots/app-state-live.png")
        try? FileManager.default.removeItem(at: screenshot)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("live-check-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let token = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits, store: store, longPolls: limiter) { port in
            // In Chinese, in Shanghai's time zone: the page formats times as the user reads them.
            let url = "http://127.0.0.1:\(port)/?user=alice&token=\(token)&locale=zh-Hans-CN&tz=Asia/Shanghai"
            let check = try await withThrowingTaskGroup(of: (status: Int32, output: String)?.self) { group in
                group.addTask {
                    try await ManagedProcess.run(
                        name: "browser-live-check", executable: python,
                        arguments: [script, url, "to bob", screenshot.path, "60"], outputFile: log,
                        timeout: .seconds(120))
                }
                group.addTask {
                    // The page has loaded its state and opened its event stream: only now is the
                    // payment made. (Cancelled if the browser gives up first.)
                    for await user in limiter.admitted where user == "alice" {
                        for event in paymentEvents.dropFirst() { try await store.apply(event) }
                        break
                    }
                    return nil
                }
                var finished: (status: Int32, output: String)?
                for try await result in group where result != nil {
                    finished = result
                    group.cancelAll()
                }
                return finished
            }
            let (status, output) = try #require(check)
            #expect(status == 0, "\(output)")
            #expect(output.hasPrefix("live\nseen\n"), "\(output)")
            #expect(output.contains("100 CNY"), "\(output)")
            // The message sent at 11:06:40 UTC on 18 November 2026, as CLDR writes it in Chinese, Shanghai time.
            #expect(output.contains("2026年11月18日 19:06"), "\(output)")
        }
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
    }
}
