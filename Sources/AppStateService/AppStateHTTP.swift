public import AppState
import Foundation
public import Hummingbird
import IntentEvents
import Logging

/// The app-state HTTP API and web page:
/// - `GET /health`: the process is up. Readiness (`/ready`) and `/metrics` are the
///   operator's: they are served on the operations port (`--http-port`), not here,
///   so the public port shows no internals and readiness has one answer.
/// - `GET /api/users/{user}/state`: everything, with the cursor it is current to.
/// - `GET /api/users/{user}/changes?since=CURSOR&wait=SECONDS`: only what changed
///   after the cursor (background refresh); with `wait` (at most 60), a long
///   poll that answers as soon as something changes (the live stream), at most
///   ``LongPollLimiter/defaultPerUser`` at once per user. A malformed cursor or
///   wait is 400 (``ChangesQuery``).
/// - `GET /api/users/{user}/events?since=CURSOR`: the live stream as Server-Sent
///   Events (``EventStream``): each change page as an `event: changes` with the
///   cursor as its `id`, so a reconnecting `EventSource` resumes with
///   `Last-Event-ID`. It takes one of the user's long-poll slots.
/// - `GET /`: the web page standing in for the iOS app.
/// Every `/api` call needs `Authorization: Bearer TOKEN` (or `?token=`) for that
/// user (``UserTokens``): none is 401, an expired one 401, another user's 403.
public enum AppStateHTTP {
    public static func router(
        store: AppStateStore, tokens: UserTokens, longPolls: LongPollLimiter = LongPollLimiter()
    ) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/health") { _, _ in "ok\n" }
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
            let query: ChangesQuery
            do {
                query = try ChangesQuery(
                    since: request.uri.queryParameters.get("since"), wait: request.uri.queryParameters.get("wait"))
            } catch let invalid as ChangesQuery.Invalid {
                throw HTTPError(.badRequest, message: invalid.description)
            }
            guard query.wait > 0 else {
                return json(
                    JSONValue(encoding: try await store.changes(of: user, since: query.since, waitingUpTo: .zero)))
            }
            let page = try await longPolls.withSlot(for: user) {
                try await store.changes(of: user, since: query.since, waitingUpTo: .seconds(query.wait))
            }
            guard let page else {
                throw tooManyStreams(longPolls)
            }
            return json(JSONValue(encoding: page))
        }
        router.get("/api/users/:user/events") { request, context -> Response in
            let user = try authorize(request, context, tokens)
            let since: Int64
            do {
                // A reconnecting EventSource sends the last id it saw; a first one may pass ?since=.
                since =
                    try ChangesQuery(
                        since: request.headers[.init(EventStream.lastEventIDHeader)!]
                            ?? request.uri.queryParameters.get("since"),
                        wait: nil
                    ).since
            } catch let invalid as ChangesQuery.Invalid {
                throw HTTPError(.badRequest, message: invalid.description)
            }
            guard longPolls.hasSlot(for: user) else {
                throw tooManyStreams(longPolls)
            }
            return EventStream.response(user: user, since: since, store: store, longPolls: longPolls)
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
        switch tokens.check(token, for: user) {
        case .accepted: return user
        case .expired: throw HTTPError(.unauthorized, message: "the token has expired; sign in again")
        case .refused: throw HTTPError(.forbidden, message: "this token is not \(user)'s")
        }
    }

    /// What a user over their long-poll and stream slots gets: 429 with the limit.
    private static func tooManyStreams(_ longPolls: LongPollLimiter) -> HTTPError {
        HTTPError(
            .tooManyRequests,
            message: "\(longPolls.perUser) live streams are already open for this user; close one first")
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
