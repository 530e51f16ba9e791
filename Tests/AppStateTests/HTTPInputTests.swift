import AppStateService
import Foundation
import HTTPServing
import Testing

/// What the API accepts from a client: a strict cursor and wait, tokens that
/// expire and rotate, and a bound on one user's open long polls.
@Suite("App-state HTTP inputs: cursors, waits, token expiry and rotation, long polls per user")
struct HTTPInputTests {
    static let limits = HTTPServerLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 64)

    @Test(
        "since must be a non-negative integer and wait 0 to 60 seconds; anything else is 400 with the reason",
        arguments: [
            ("since=abc", "since"), ("since=-1", "since"), ("since=1e30", "since"), ("since=1.5", "since"),
            ("since=", "since"), ("since=99999999999999999999", "since"), ("wait=1e9", "wait"), ("wait=61", "wait"),
            ("wait=-1", "wait"), ("wait=5s", "wait"),
        ])
    func badQueries(_ query: String, _ parameter: String) async throws {
        let token = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits) { port in
            var connection = try await RawConnection.open(port: port)
            let response = try await connection.get("/api/users/alice/changes?\(query)", token: token)
            #expect(response.status == 400, "\(query)")
            #expect(response.body.contains("\(parameter) must be"), "\(response.body)")
            // A well-formed query on the same connection is answered.
            #expect(try await connection.get("/api/users/alice/changes?since=0&wait=0", token: token).status == 200)
        }
    }

    @Test("the cursor and wait are read exactly")
    func goodQueries() throws {
        #expect(try ChangesQuery(since: nil, wait: nil) == ChangesQuery(since: "0", wait: "0"))
        let query = try ChangesQuery(since: "9223372036854775807", wait: "60")
        #expect(query.since == Int64.max)
        #expect(query.wait == ChangesQuery.maximumWait)
        #expect(throws: ChangesQuery.Invalid.self) { try ChangesQuery(since: "9223372036854775808", wait: nil) }
    }

    @Test("tokens expire: an expired token is 401, another user's 403, a tampered expiry 403")
    func expiry() async throws {
        let now = Date()
        let expired = UserTokens(key: testAppKey, lifetime: .seconds(60)).token(for: "alice", now: now - 3600)
        #expect(testTokens.check(expired, for: "alice", now: now) == .expired)
        let current = testTokens.token(for: "alice", now: now)
        #expect(testTokens.check(current, for: "alice", now: now) == .accepted)
        #expect(testTokens.check(current, for: "bob", now: now) == .refused)
        var parts = current.split(separator: ".").map(String.init)
        parts[1] = String(Int64(parts[1])! + 86_400)
        #expect(testTokens.check(parts.joined(separator: "."), for: "alice", now: now) == .refused)
        // A token without an expiry (the old form, a bare MAC) is refused.
        #expect(testTokens.check(String(parts[3]), for: "alice", now: now) == .refused)
        // Valid tokens stop working once their lifetime is over.
        #expect(testTokens.check(current, for: "alice", now: now + 86_401) == .expired)
        try await withAppStateServer(limits: Self.limits) { port in
            var connection = try await RawConnection.open(port: port)
            let response = try await connection.get("/api/users/alice/state", token: expired)
            #expect(response.status == 401)
            #expect(response.body.contains("expired"))
        }
    }

    @Test(
        "rotation: during it both keys' tokens are accepted and the new key issues; after it the old key's are refused")
    func rotation() throws {
        let old = [UInt8](repeating: 0x01, count: 32)
        let new = [UInt8](repeating: 0x02, count: 32)
        let oldToken = UserTokens(key: old).token(for: "alice")
        let during = UserTokens(keys: [old, new])
        let newToken = during.token(for: "alice")
        #expect(during.accepts(oldToken, for: "alice"))
        #expect(during.accepts(newToken, for: "alice"))
        #expect(UserTokens(key: new).accepts(newToken, for: "alice"), "the last key listed issues")
        #expect(!UserTokens(key: new).accepts(oldToken, for: "alice"))
    }

    @Test("one user's long polls are bounded: the one over the limit is 429, another user's is served")
    func longPollsPerUser() async throws {
        let limiter = LongPollLimiter(perUser: 2)
        // Alice's two slots are held, as by two open polls, until the holders are cancelled.
        let (entered, inside) = AsyncStream.makeStream(of: Void.self)
        let holders = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        _ = await limiter.withSlot(for: "alice") {
                            inside.yield()
                            try? await Task.sleep(for: .seconds(120))
                        }
                    }
                }
            }
        }
        var count = 0
        for await _ in entered {
            count += 1
            if count == 2 { break }
        }
        let alice = testTokens.token(for: "alice")
        try await withAppStateServer(limits: Self.limits, longPolls: limiter) { port in
            var connection = try await RawConnection.open(port: port)
            let refused = try await connection.get("/api/users/alice/changes?since=0&wait=1", token: alice)
            #expect(refused.status == 429)
            #expect(refused.body.contains("live streams"))
            // Without waiting, Alice is still served; so is Bob's long poll.
            #expect(try await connection.get("/api/users/alice/changes?since=0", token: alice).status == 200)
            let bob = testTokens.token(for: "bob")
            #expect(try await connection.get("/api/users/bob/changes?since=0&wait=1", token: bob).status == 200)
            // Once a slot is free, Alice's poll is served.
            holders.cancel()
            await holders.value
            #expect(try await connection.get("/api/users/alice/changes?since=0&wait=1", token: alice).status == 200)
        }
    }
}
