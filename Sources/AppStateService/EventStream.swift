import AppState
import Foundation
import Hummingbird
import IntentEvents
import ServiceLifecycle
import Synchronization

/// The app state's live stream as Server-Sent Events (`text/event-stream`), what a
/// browser's `EventSource` reads: each page of changes as `event: changes` with the
/// cursor as its `id` and the page as its `data` (the long poll's JSON), a comment
/// after every ``keepAlive`` without news, so proxies keep the connection and a client
/// gone is noticed, and an end after ``maximumDuration``, after which the browser
/// reconnects with `Last-Event-ID` and misses nothing. A stream holds one of the user's
/// long-poll slots while it runs, and ends within ``keepAlive`` of a graceful shutdown.
public enum EventStream {
    public static let keepAlive = Duration.seconds(5)
    public static let maximumDuration = Duration.seconds(300)
    /// How long a browser waits before reconnecting, in milliseconds.
    public static let retryMilliseconds = 2000
    /// The request header a reconnecting browser names the last event it saw in.
    public static let lastEventIDHeader = "Last-Event-ID"

    static func response(user: String, since: Int64, store: AppStateStore, longPolls: LongPollLimiter) -> Response {
        let body = ResponseBody { writer in
            let stopping = Atomic(false)
            let served = try await longPolls.withSlot(for: user) {
                try await withGracefulShutdownHandler {
                    try await writer.write(ByteBuffer(string: "retry: \(retryMilliseconds)\n\n"))
                    var cursor = since
                    let ends = ContinuousClock.now + maximumDuration
                    while ContinuousClock.now < ends, !stopping.load(ordering: .relaxed), !Task.isCancelled {
                        let page = try await store.changes(of: user, since: cursor, waitingUpTo: keepAlive)
                        try await writer.write(ByteBuffer(string: frame(page)))
                        cursor = page.cursor
                    }
                    return true
                } onGracefulShutdown: {
                    stopping.store(true, ordering: .relaxed)
                }
            }
            if served == nil {
                // Another stream took the last slot after this one was admitted.
                try await writer.write(ByteBuffer(string: "event: busy\ndata: {}\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
            body: body)
    }

    /// One page as an event, or a comment when it holds nothing new. Canonical JSON has
    /// no raw line breaks, so the page fits one `data` line.
    static func frame(_ page: AppStateStore.ChangePage) -> String {
        guard !page.changes.isEmpty else { return ": keep-alive\n\n" }
        let data = String(decoding: CanonicalJSON.encode(JSONValue(encoding: page)), as: UTF8.self)
        return "id: \(page.cursor)\nevent: changes\ndata: \(data)\n\n"
    }
}
