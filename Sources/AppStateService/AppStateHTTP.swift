public import AppState
import Foundation
public import Hummingbird
import IntentEvents
import Logging

/// The app-state HTTP API and web page:
/// - `GET /health`: the process is up. `GET /ready`: the store is open and the
///   consumer has partitions.
/// - `GET /api/users/{user}/state`: everything, with the cursor it is current to.
/// - `GET /api/users/{user}/changes?since=CURSOR&wait=SECONDS`: only what changed
///   after the cursor (background refresh); with `wait`, a long poll that
///   answers as soon as something changes (the live stream).
/// - `GET /`: the web page standing in for the iOS app.
/// Every `/api` call needs `Authorization: Bearer TOKEN` (or `?token=`) for that user.
public enum AppStateHTTP {
    public static func router(
        store: AppStateStore, tokens: UserTokens, ready: @escaping @Sendable () -> Bool
    ) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/health") { _, _ in "ok\n" }
        router.get("/ready") { _, _ -> Response in
            ready() ? text(.ok, "ready\n") : text(.serviceUnavailable, "not ready: consumer not assigned yet\n")
        }
        router.get("/") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: WebPage.html)))
        }
        router.get("/api/users/:user/state") { request, context -> Response in
            let user = try authorize(request, context, tokens)
            return json(try await store.snapshot(of: user))
        }
        router.get("/api/users/:user/changes") { request, context -> Response in
            let user = try authorize(request, context, tokens)
            let since = request.uri.queryParameters.get("since", as: Int64.self) ?? 0
            let wait = min(max(request.uri.queryParameters.get("wait", as: Int.self) ?? 0, 0), 60)
            let page = try await store.changes(of: user, since: since, waitingUpTo: .seconds(wait))
            return json(JSONValue(encoding: page))
        }
        return router
    }

    /// The user in the path (percent-decoded, see ``UserPathParameter``), if
    /// the request carries that user's token; 400, 401 or 403 otherwise.
    private static func authorize(
        _ request: Request, _ context: BasicRequestContext, _ tokens: UserTokens
    ) throws -> String {
        let user = try UserPathParameter.decode(try context.parameters.require("user"))
        let header = request.headers[.authorization]
        let token =
            header.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            ?? request.uri.queryParameters.get("token")
        guard let token else { throw HTTPError(.unauthorized, message: "missing bearer token") }
        guard tokens.accepts(token, for: user) else {
            throw HTTPError(.forbidden, message: "this token is not \(user)'s")
        }
        return user
    }

    private static func json(_ value: JSONValue) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: CanonicalJSON.encode(value))))
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
