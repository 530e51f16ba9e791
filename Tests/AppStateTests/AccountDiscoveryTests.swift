import AppState
import AppStateService
import ContactResolution
import Foundation
import HTTPServing
import IntentEvents
import Payments
import Testing

/// No account discovery: adding a phone number to one's contacts must not tell
/// whether it opened a payment account, nor whose. Every endpoint a user can read
/// is scanned for the other user's id, over HTTP, against the server as
/// `intent-appstate` runs it.
@Suite("App state: no account ids of other users in any answer")
struct AccountDiscoveryTests {
    static let limits = HTTPServerLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 64)
    /// The other user's id: it must appear in nothing Alice reads.
    static let other = "acct-7f3a9"

    @Test("a contact with another user's phone number, and payments and requests with them, show only names")
    func scanEveryEndpoint() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(account: accountOpened(Self.other, handles: ["+86 139 1234 5678"]))
        try await store.apply(account: accountOpened("alice", handles: ["alice@example.cn"]))
        // Alice adds the number to her contacts; later that account requests money from her and pays her.
        try await store.apply(
            contact: .upsert(
                userID: "alice", contact: Contact(id: "c-zhang", displayName: "小张", handles: ["+86 139 1234 5678"]),
                version: 1))
        try await store.apply(
            envelope(
                "request", type: LedgerEvent.type, user: Self.other,
                LedgerEvent(
                    id: "request", kind: .requestCreated, userID: Self.other, requestID: "r1",
                    counterpartyUserID: "alice", amount: cny("5"))))
        try await store.apply(transferEvent(.hold, "t1", payer: Self.other, payee: "alice", handle: "alice@example.cn"))
        try await store.apply(transferEvent(.post, "t1", payer: Self.other, payee: "alice"))
        // And a payment from an account Alice has no contact for.
        try await store.apply(account: accountOpened("acct-unknown", handles: ["+1 555 0100"]))
        try await store.apply(
            transferEvent(.hold, "t2", payer: "acct-unknown", payee: "alice", handle: "alice@example.cn"))
        try await store.apply(transferEvent(.post, "t2", payer: "acct-unknown", payee: "alice"))

        let token = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits, store: store) { port in
            var connection = try await RawConnection.open(port: port)
            var answers: [String: String] = [:]
            for path in ["/api/users/alice/state", "/api/users/alice/changes?since=0&wait=0", "/"] {
                let response = try await connection.get(path, token: token)
                #expect(response.status == 200, "\(path): \(response.body)")
                answers[path] = response.body
            }
            var stream = try await RawConnection.open(port: port)
            try await stream.send(
                "GET /api/users/alice/events?since=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
            )
            _ = try await stream.read(until: "event: changes\n")
            answers["/api/users/alice/events"] = try await stream.read(until: "\n\n")
            try await stream.channel.close()

            for (path, body) in answers {
                #expect(!body.contains(Self.other), "\(path) reveals the account: \(body)")
                #expect(!body.contains("acct-unknown"), "\(path) reveals the account: \(body)")
            }
            // Not vacuous: the answers carry the items, named from Alice's own contact.
            let state = try #require(answers["/api/users/alice/state"])
            #expect(state.contains(#""counterpartyName":"小张""#), "\(state)")
            #expect(state.contains(#""counterpartyContact":"c-zhang""#), "\(state)")
            #expect(state.contains(#""id":"t2""#), "\(state)")
            #expect(answers["/api/users/alice/events"]?.contains("小张") == true)
        }
    }
}
