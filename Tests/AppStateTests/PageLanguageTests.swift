import AppState
import AppStateService
import BrokerTestSupport
import ContactResolution
import Foundation
import HTTPServing
import IntentEvents
import Intents
import LocalBroker
import Payments
import Testing

/// The page people would use (issue 31, point 6), in headless Chromium: every answer said in
/// the viewer's language from its key and arguments (the payment was answered in Chinese; a
/// Russian or English viewer reads it in theirs), codes in words, no user id, Russian names
/// left in the nominative, and a sign-in form instead of the API's refusal. The screenshots
/// (under .build/screenshots/) are the ones committed as docs/app-state-{zh,ru,en}.png.
@Suite("The page in the viewer's language, in headless Chromium", .heavyTimeLimit(minutes: 4))
struct PageLanguageTests {
    @Test(
        "the answers in the viewer's language, the person by name in the nominative, no raw code, no id",
        arguments: [
            ("zh-Hans-CN", "付款给尤利娅", ["已付款¥100.00。", "成功", "你好", "；实时更新。"], "zh"),
            ("ru-RU", "Платёж. Получатель: Юлия Щукина", ["Переведено 100,00", "успешно", "Здравствуйте"], "ru"),
            ("en-US", "payment to Julia Shchukina", ["Sent CN¥100.00.", "done", "Hello"], "en"),
        ])
    func language(locale: String, expecting: String, shows: [String], name: String) async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(paymentEvents[0])
        try await store.apply(account: accountOpened("bob", handles: ["bob@example.com"]))
        // Alice names the payee in her own language; the page names him as she does.
        let names = ["zh": "尤利娅", "ru": "Юлия Щукина", "en": "Julia Shchukina"]
        try await store.apply(
            contact: .upsert(
                userID: "alice",
                contact: Contact(id: "c-bob", displayName: names[name] ?? "", handles: ["bob@example.com"])))
        let screenshot = try #require(ToolLocator.projectRoot()).appendingPathComponent(
            ".build/screenshots/app-state-\(name).png")
        try await withAppStateServer(limits: LivePageTests.limits, store: store) { port in
            let url =
                "http://127.0.0.1:\(port)/?user=alice&locale=\(locale)&tz=Europe/Moscow#token=\(testTokens.token(for: "alice"))"
            let (status, output) = try await BrowserLiveCheck.run(
                url: url, expecting: expecting, screenshot: screenshot
            ) {
                // The payment and its answer, said in Chinese when it was made.
                for event in paymentEvents.dropFirst() { try await store.apply(event) }
            }
            #expect(status == 0, "\(output)")
            for text in shows { #expect(output.contains(text), "\(locale): no \(text) in \(output)") }
            // No raw code, no user id, no sentence in another language than the viewer's.
            for raw in ["success", "sendPayment", "alice", "paymentSent", "Hello,", "你好，", "Здравствуйте,"] {
                #expect(!output.contains(raw), "\(locale): \(raw) in \(output)")
            }
            if name != "zh" { #expect(!output.contains("已付款"), "\(locale): the request's language: \(output)") }
            if name == "ru" { #expect(!output.contains("для "), "a preposition that declines the name: \(output)") }
        }
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
    }
}
