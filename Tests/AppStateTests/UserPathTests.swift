import AppState
import AppStateService
import HTTPServing
import Testing

/// The user id in an API path is percent-decoded before the token is checked
/// and the state looked up; what a decoded id could smuggle is refused.
@Suite("App-state API user ids in the path")
struct UserPathTests {
    static func store() async throws -> AppStateStore {
        let store = try AppStateStore(path: ":memory:")
        for event in paymentEvents { try await store.apply(event) }
        return store
    }

    static let limits = HTTPServerLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 64)

    @Test("the user's own token on a percent-encoded id opens that user's state")
    func encodedOwnID() async throws {
        try await withAppStateServer(limits: Self.limits, store: try await Self.store()) { port in
            var connection = try await RawConnection.open(port: port)
            let alice = testTokens.token(for: "alice")
            let plain = try await connection.get("/api/users/alice/state", token: alice)
            #expect(plain.status == 200)
            for path in ["/api/users/%61lice/state", "/api/users/%61%6C%69%63%65/state"] {
                let encoded = try await connection.get(path, token: alice)
                #expect(encoded.status == 200, "\(path)")
                #expect(encoded.body == plain.body, "\(path) is not alice's state")
            }
            #expect(plain.body.contains("\"user\":\"alice\"") && plain.body.contains("t1"))
            let changes = try await connection.get("/api/users/%61lice/changes?since=0", token: alice)
            #expect(changes.status == 200 && changes.body.contains("\"seq\""))
            // What the web page sends (encodeURIComponent) for an id outside ASCII.
            let sunbo = try await connection.get(
                "/api/users/%E5%AD%99%E6%B3%A2/state", token: testTokens.token(for: "孙波"))
            #expect(sunbo.status == 200 && sunbo.body.contains("\"user\":\"孙波\""), "\(sunbo)")
        }
    }

    @Test("another user's token on an encoded id is refused")
    func encodedOtherID() async throws {
        try await withAppStateServer(limits: Self.limits, store: try await Self.store()) { port in
            var connection = try await RawConnection.open(port: port)
            let bob = testTokens.token(for: "bob")
            #expect(try await connection.get("/api/users/%61lice/state", token: bob).status == 403)
            #expect(try await connection.get("/api/users/%61lice/changes?since=0", token: bob).status == 403)
            // The token of the undecoded spelling opens nothing either.
            let literal = testTokens.token(for: "%61lice")
            #expect(try await connection.get("/api/users/%61lice/state", token: literal).status == 403)
            #expect(try await connection.get("/api/users/%61lice/state").status == 401)
        }
    }

    @Test("malformed or smuggling ids are a 400, before any token check")
    func malformedIDs() async throws {
        try await withAppStateServer(limits: Self.limits, store: try await Self.store()) { port in
            var connection = try await RawConnection.open(port: port)
            let alice = testTokens.token(for: "alice")
            let tooLong = String(repeating: "a", count: 129)
            for id in ["%", "ali%", "%6", "%G1", "%FF", "%C3%28", "al%2Fice", "%2F", "%00", "alice%0A", "%7F", tooLong]
            {
                let response = try await connection.get("/api/users/\(id)/state", token: alice)
                #expect(response.status == 400, "\(id): \(response.status) \(response.body)")
            }
            // An empty segment matches no route at all: it never reaches authorization.
            #expect(try await connection.get("/api/users//state", token: alice).status == 404)
            // The longest accepted id is still an id (just not alice's).
            let longest = String(repeating: "a", count: 128)
            #expect(try await connection.get("/api/users/\(longest)/state", token: alice).status == 403)
            #expect(
                try await connection.get("/api/users/\(longest)/state", token: testTokens.token(for: longest)).status
                    == 200)
        }
    }
}
