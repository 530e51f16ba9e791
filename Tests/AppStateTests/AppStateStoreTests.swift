import AppState
import BrokerTestSupport
import Foundation
import IntentEvents
import Intents
import Messaging
import Payments
import Testing

let t0 = Date(timeIntervalSince1970: 1_795_000_000)

func envelope<Payload: Encodable>(
    _ id: String, type: String, user: String, intent: String? = nil, _ payload: Payload
) -> EventEnvelope {
    EventEnvelope(
        id: id, source: "/test", type: type, time: t0, userID: user, conversationID: "c", intentID: intent,
        payload: payload)
}

func cny(_ text: String) -> CurrencyAmount { CurrencyAmount(amount: DecimalAmount(text)!, currency: "CNY") }

/// Alice pays Bob 100 CNY (hold, post), sends a message, and gets the final response.
let paymentEvents: [EventEnvelope] = [
    envelope(
        "deposit", type: LedgerEvent.type, user: "alice",
        LedgerEvent(
            id: "deposit", kind: .deposit, userID: "alice",
            entries: [
                LedgerEntry(account: Ledger.funding, side: .debit, amount: cny("1000")),
                LedgerEntry(account: Ledger.available("alice"), side: .credit, amount: cny("1000")),
            ])),
    envelope(
        "hold", type: LedgerEvent.type, user: "alice", intent: "i1",
        LedgerEvent(
            id: "hold", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("100")),
            ], counterpartyUserID: "bob", amount: cny("100"))),
    envelope(
        "post", type: LedgerEvent.type, user: "alice", intent: "i1",
        LedgerEvent(
            id: "post", kind: .post, userID: "alice", intentID: "i1", transferID: "t1",
            entries: [
                LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("100")),
            ], counterpartyUserID: "bob", amount: cny("100"))),
    envelope(
        "response-i1", type: IntentResponse.type, user: "alice", intent: "i1",
        IntentResponse(
            kind: .sendPayment, code: .success, message: "已付款¥100.00。",
            localized: LocalizedMessage(.paymentSent, ["amount": .amount(cny("100"))]), transferID: "t1")),
    envelope(
        "message", type: MessageEvent.type, user: "alice", intent: "i2",
        MessageEvent(
            id: "message", kind: .delivered, userID: "alice", intentID: "i2", messageIDs: ["m1"],
            conversation: "with:c-xm",
            recipients: [Person(spoken: "小明", displayName: "小明")], content: "晚上好", at: Timestamp(t0))),
]

@Suite("App state store")
struct AppStateStoreTests {
    @Test("payments, balances, messages and intents per user; the payee sees the payment too")
    func state() async throws {
        let store = try AppStateStore(path: ":memory:")
        for event in paymentEvents { #expect(try await store.apply(event)) }
        let alice = try #require(try await store.snapshot(of: "alice").objectValue)
        #expect(alice["balances"] == .array([.object(["currency": "CNY", "available": "900", "held": "0"])]))
        let payment = try #require(alice["payments"]?.arrayValue?.first?.objectValue)
        #expect(payment["status"] == "sent")
        #expect(payment["amount"] == "100 CNY")
        // Bob is not in Alice's contacts and the hold names no handle: no name, and never his user id.
        #expect(payment["counterpartyName"] == .null)
        #expect(payment["counterparty"] == nil)
        let bob = try #require(try await store.snapshot(of: "bob").objectValue)
        #expect(bob["balances"] == .array([.object(["currency": "CNY", "available": "100", "held": "0"])]))
        let received = try #require(bob["payments"]?.arrayValue?.first?.objectValue)
        #expect(received["direction"] == "received")
        #expect(alice["intents"]?.arrayValue?.count == 1)
        #expect(alice["messages"]?.arrayValue?.count == 1)
        // The answer as said, and by key and arguments for a client that says it in its own language.
        let intent = try #require(alice["intents"]?.arrayValue?.first?.objectValue)
        #expect(intent["message"] == "已付款¥100.00。")
        #expect(intent["messageKey"] == "payment.sent")
        #expect(
            intent["messageArguments"]
                == .object(["amount": .object(["amount": .object(["amount": "100", "currency": "CNY"])])]))
    }

    @Test("redelivered events change nothing; the change feed gives only what is new after a cursor")
    func idempotentFeed() async throws {
        let path = testFileURL("appstate-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try AppStateStore(path: path)
        for event in paymentEvents.prefix(2) { try await store.apply(event) }
        let first = try await store.changes(of: "alice", since: 0)
        #expect(!first.changes.isEmpty)
        for event in paymentEvents.prefix(2) { #expect(try await store.apply(event) == false) }
        #expect(try await store.changes(of: "alice", since: first.cursor).changes.isEmpty)
        for event in paymentEvents.dropFirst(2) { try await store.apply(event) }
        let next = try await store.changes(of: "alice", since: first.cursor)
        #expect(Set(next.changes.map(\.kind)) == ["payment", "balance", "intent", "message"])
        #expect(next.changes.allSatisfy { $0.seq > first.cursor })

        // Durable: a new store on the same file has the same state and refuses the same events.
        let reopened = try AppStateStore(path: path)
        #expect(try await reopened.snapshot(of: "alice") == (try await store.snapshot(of: "alice")))
        #expect(try await reopened.apply(paymentEvents[0]) == false)
    }
}

@Suite("App state live stream")
struct AppStateLiveTests {
    @Test("a long poll answers when a change arrives, not at its timeout; with nothing new it waits out the timeout")
    func longPoll() async throws {
        let store = try AppStateStore(path: ":memory:")
        let started = ContinuousClock.now
        async let page = store.changes(of: "alice", since: 0, waitingUpTo: .seconds(300))
        // The change is applied while the poll waits; the poll must return with it.
        try await store.apply(paymentEvents[0])
        let result = try await page
        #expect(result.changes.map(\.kind) == ["balance"])
        // Only tells "answered by the change" (milliseconds) from "answered at the timeout"
        // (300 s), with a wide margin for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(60))
        let empty = try await store.changes(of: "alice", since: result.cursor, waitingUpTo: .milliseconds(300))
        #expect(empty.changes.isEmpty)
        #expect(empty.cursor == result.cursor)
    }
}
