import AppState
import AppStateService
import BrokerTestSupport
import ContactResolution
import Foundation
import HTTPServing
import IntentEvents
import Intents
import LocalBroker
import Messaging
import Payments
import Testing

/// The web page in a real browser: headless Chromium driven over the DevTools protocol
/// (`scripts/browser_live_check.py`), against the server as `intent-appstate` runs it.
@Suite("The web page follows the app state live, in headless Chromium", .heavyTimeLimit(minutes: 3))
struct LivePageTests {
    static let limits = HTTPServerLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 64)

    @Test("a payment made while the page is open appears on it without a reload; a screenshot goes under .build/")
    func paymentAppearsLive() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(paymentEvents[0])  // the deposit: the page opens with a balance and no payment
        // Bob is 鲍勃 in Alice's contacts: the page names him so.
        try await store.apply(account: accountOpened("bob", handles: ["bob@example.com"]))
        try await store.apply(
            contact: .upsert(
                userID: "alice", contact: Contact(id: "c-bob", displayName: "鲍勃", handles: ["bob@example.com"])))
        // A contact's name is the user's data, not markup: a name written as HTML shows as text.
        let hostile = #"<img src=x onerror="document.title='pwned'">"#
        try await store.apply(
            contact: .upsert(userID: "alice", contact: Contact(id: "c-evil", displayName: hostile)))
        try await store.apply(
            envelope(
                "message-evil", type: MessageEvent.type, user: "alice", intent: "i9",
                MessageEvent(
                    id: "message-evil", kind: .delivered, userID: "alice", intentID: "i9", messageIDs: ["m9"],
                    conversation: "with:c-evil", recipients: [Person(contactID: "c-evil", displayName: hostile)],
                    content: "</td><script>document.title='pwned'</script>", at: Timestamp(t0))))
        let root = try #require(ToolLocator.projectRoot(), "run from the checkout")
        let screenshot = root.appendingPathComponent(".build/screenshots/app-state-live.png")
        let token = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits, store: store) { port in
            // In Chinese, in Shanghai's time zone: the page formats times as the user reads them.
            let url = "http://127.0.0.1:\(port)/?user=alice&token=\(token)&locale=zh-Hans-CN&tz=Asia/Shanghai"
            // The payment is made only once the page has loaded, opened its stream and shown no payment.
            let (status, output) = try await BrowserLiveCheck.run(
                url: url, expecting: "付款给鲍勃", screenshot: screenshot
            ) {
                for event in paymentEvents.dropFirst() { try await store.apply(event) }
            }
            #expect(status == 0, "\(output)")
            #expect(output.hasPrefix("live\nseen\n"), "\(output)")
            // In Chinese: the page's words, the amount as CLDR writes yuan, the status.
            #expect(output.contains("¥100.00"), "\(output)")
            #expect(output.contains("已付款"), "\(output)")
            #expect(output.contains("¥900.00"), "the balance after paying: \(output)")
            #expect(output.contains(hostile), "the name as text, so not parsed as markup: \(output)")
            #expect(output.contains("</td><script>"), "the message as text: \(output)")
            // The message sent at 11:06:40 UTC on 18 November 2026, as CLDR writes it in Chinese, Shanghai time.
            #expect(output.contains("2026年11月18日 19:06"), "\(output)")
        }
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
    }

    @Test("names from outside are only names: an iOS-style locale and ids such as constructor do not break the page")
    func oddNames() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(paymentEvents[0])
        // Two people Alice's contacts name oddly, at the same time: a tie the page breaks by name.
        for (index, odd) in ["constructor", "__proto__"].enumerated() {
            try await store.apply(account: accountOpened("user-\(index)", handles: ["\(odd)@example.com"]))
            try await store.apply(
                contact: .upsert(
                    userID: "alice", contact: Contact(id: odd, displayName: odd, handles: ["\(odd)@example.com"]),
                    version: 1))
            try await store.apply(
                envelope(
                    "request-\(odd)", type: LedgerEvent.type, user: "alice",
                    LedgerEvent(
                        id: "request-\(odd)", kind: .requestCreated, userID: "alice", requestID: "r\(index)",
                        counterpartyUserID: "user-\(index)", amount: cny("5"))))
        }
        let screenshot = try #require(ToolLocator.projectRoot()).appendingPathComponent(
            ".build/screenshots/app-state-odd-names.png")
        try await withAppStateServer(limits: Self.limits, store: store) { port in
            // "en_US" is how iOS writes a locale; it is no BCP 47 tag, and the page's formatters refuse it.
            let url = "http://127.0.0.1:\(port)/?user=alice&token=\(testTokens.token(for: "alice"))&locale=en_US"
            let (status, output) = try await BrowserLiveCheck.run(
                url: url, expecting: "payment to someone", screenshot: screenshot
            ) {
                for event in paymentEvents.dropFirst() { try await store.apply(event) }
            }
            #expect(status == 0, "\(output)")
            #expect(output.contains("you ask constructor for"), "\(output)")
            #expect(output.contains("you ask __proto__ for"), "\(output)")
            // Bob is in no contact of Alice's: "someone", never his user id.
            #expect(!output.contains("bob"), "\(output)")
        }
    }
}
