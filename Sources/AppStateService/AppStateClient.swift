import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the app-state service over HTTP, as the parent app would: used by
/// the demo to print the final state and by the end-to-end test to check it.
public struct AppStateClient: Sendable {
    public let port: Int
    /// The service's operations port (`--http-port`), where `/ready` is; nil when it serves none.
    public let operationsPort: Int?
    public let tokens: UserTokens

    public init(port: Int, operationsPort: Int? = nil, tokens: UserTokens) {
        self.port = port
        self.operationsPort = operationsPort
        self.tokens = tokens
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The web page for a user; `wait` is the page's long-poll length (0: render once).
    public func pageURL(for user: String, wait: Int? = nil) -> String {
        "http://127.0.0.1:\(port)/?user=\(user)&token=\(tokens.token(for: user))" + (wait.map { "&wait=\($0)" } ?? "")
    }

    /// Waits until the operations port's `/ready` answers 200 (partitions assigned), or without
    /// one until the API's `/health` does (serving; ``state(of:timeout:until:)`` then waits for
    /// the state to catch up). The service starts as a separate process: there is no event to await.
    public func waitUntilReady(timeout: Duration = .seconds(90)) async throws {
        let deadline = ContinuousClock.now + timeout
        let (probePort, path) = operationsPort.map { ($0, "/ready") } ?? (port, "/health")
        while ContinuousClock.now < deadline {
            if (try? await status(path, token: nil, port: probePort)) == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw Failure(description: "the app-state service did not answer 200 on port \(probePort)\(path)")
    }

    /// The HTTP status of a GET of the API's port (or `port`), with the given bearer token or none.
    public func status(_ path: String, token: String?, port: Int? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port ?? self.port)\(path)")!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// The user's state, as soon as `isComplete` says it caught up with what
    /// the caller expects. Uses the long poll on the change feed to wait.
    public func state(
        of user: String, timeout: Duration = .seconds(60), until isComplete: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let state = try await get("/api/users/\(user)/state", user: user)
            if isComplete(state) { return state }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "the state of \(user) did not catch up: \(state)")
            }
            // Wait for the next change after what we saw (the live stream), then look again.
            _ = try await get("/api/users/\(user)/changes?since=\(state["cursor"] as? Int ?? 0)&wait=5", user: user)
        }
    }

    private func get(_ path: String, user: String) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.setValue("Bearer \(tokens.token(for: user))", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
