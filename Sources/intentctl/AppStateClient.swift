import AppStateService
import Foundation
import LocalBroker

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the app-state service over HTTP, as the parent app would.
struct AppStateClient: Sendable {
    let port: Int
    let tokens: UserTokens

    func pageURL(for user: String) -> String {
        "http://127.0.0.1:\(port)/?user=\(user)&token=\(tokens.token(for: user))"
    }

    /// Waits (up to a minute) until `/ready` answers 200.
    func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? Loopback.httpStatus(method: "GET", port: port, path: "/ready")) == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw DemoError("the app-state service did not become ready on port \(port)")
    }

    /// The user's state, fetched until `isComplete` says it has caught up (or 30 s pass).
    func state(of user: String, until isComplete: ([String: Any]) -> Bool) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/users/\(user)/state")!)
        request.setValue("Bearer \(tokens.token(for: user))", forHTTPHeaderField: "Authorization")
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let (data, _) = try await URLSession.shared.data(for: request)
            let state = (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            if isComplete(state) || ContinuousClock.now >= deadline { return state }
            try await Task.sleep(for: .milliseconds(300))
        }
    }
}
