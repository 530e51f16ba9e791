import AppState
import AppStateService
import HTTPServing
import Testing

/// The live stream as Server-Sent Events, over a real connection to the server as
/// `intent-appstate` runs it.
@Suite("App state live stream: Server-Sent Events")
struct EventStreamTests {
    /// Timeouts far beyond the test: none of them is under test here, and a stream must not be
    /// cut by one when a loaded machine slows the test down.
    static let limits = HTTPServerLimits(headerTimeout: .seconds(300), idleTimeout: .seconds(300), maxConnections: 64)

    static func request(_ path: String, token: String, lastEventID: String? = nil) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + (lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? "") + "\r\n"
    }

    /// The `id` of the last event in `text`.
    static func eventID(_ text: String) -> Int64? {
        guard let line = text.split(whereSeparator: \.isNewline).last(where: { $0.hasPrefix("id: ") }) else {
            return nil
        }
        return Int64(line.dropFirst(4))
    }

    @Test("each change arrives as an event with its cursor as id; a reconnection with Last-Event-ID resumes there")
    func stream() async throws {
        let store = try AppStateStore(path: ":memory:")
        let alice = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits, store: store) { port in
            var first = try await RawConnection.open(port: port)
            try await first.send(Self.request("/api/users/alice/events?since=0", token: alice))
            let head = try await first.read(until: "retry: \(EventStream.retryMilliseconds)\n\n")
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            #expect(head.lowercased().contains("content-type: text/event-stream"), "\(head)")
            // A change made while the stream is open arrives on it, with no poll.
            try await store.apply(paymentEvents[0])
            _ = try await first.read(until: "event: changes\n")
            let deposit = try await first.read(until: "\n\n")
            #expect(deposit.contains(#""kind":"balance""#), "\(deposit)")
            let seen = try await store.changes(of: "alice", since: 0).cursor
            try await first.channel.close()

            // Reconnecting from that cursor: only what came after it.
            var second = try await RawConnection.open(port: port)
            try await second.send(Self.request("/api/users/alice/events", token: alice, lastEventID: "\(seen)"))
            _ = try await second.read(until: "retry: \(EventStream.retryMilliseconds)\n\n")
            try await store.apply(paymentEvents[1])
            let hold = try await second.read(until: "event: changes\n")
            #expect(Self.eventID(hold).map { $0 > seen } == true, "\(hold)")
            let next = try await second.read(until: "\n\n")
            #expect(next.contains(#""kind":"payment""#), "\(next)")
            #expect(!next.contains(#""available":"1000""#), "the deposit again: \(next)")
            try await second.channel.close()
        }
    }

    @Test("a malformed Last-Event-ID is 400; a stream over the user's limit is 429; another user's token is 403")
    func refusals() async throws {
        let limiter = LongPollLimiter(perUser: 1)
        let alice = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits, longPolls: limiter) { port in
            var connection = try await RawConnection.open(port: port)
            try await connection.send(Self.request("/api/users/alice/events", token: alice, lastEventID: "1e9"))
            let malformed = try await connection.response()
            #expect(malformed.status == 400)
            #expect(malformed.body.contains("since"), "\(malformed.body)")
            #expect(
                try await connection.get("/api/users/bob/events", token: alice).status == 403)

            var open = try await RawConnection.open(port: port)
            try await open.send(Self.request("/api/users/alice/events", token: alice))
            _ = try await open.read(until: "retry: ")
            var second = try await RawConnection.open(port: port)
            let refused = try await second.get("/api/users/alice/events", token: alice)
            #expect(refused.status == 429)
            try await open.channel.close()
        }
    }
}
