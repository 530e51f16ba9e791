import AppState
import AppStateService
import Foundation
import HTTPServing
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

let testAppKey = [UInt8](repeating: 0x61, count: 32)
let testTokens = UserTokens(key: testAppKey)

/// Runs `body` against the app-state HTTP server started exactly as
/// `intent-appstate` starts it (``AppStateServer``), on a free loopback port,
/// in this process; stops it afterwards.
func withAppStateServer<T: Sendable>(
    limits: HTTPServerLimits, store: AppStateStore? = nil, tokens: UserTokens = testTokens,
    longPolls: LongPollLimiter = LongPollLimiter(), _ body: @Sendable (Int) async throws -> T
) async throws -> T {
    var logger = Logger(label: "appstate-http-test")
    logger.logLevel = .warning
    let router = AppStateHTTP.router(
        store: try store ?? AppStateStore(path: ":memory:"), tokens: tokens, longPolls: longPolls)
    let (ports, listening) = AsyncStream.makeStream(of: Int.self)
    let application = AppStateServer.application(
        router: router, host: "127.0.0.1", port: 0, limits: limits, logger: logger,
        onListening: { port in listening.yield(port) })
    let services = ServiceGroup(
        configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            defer { listening.finish() }
            try await services.run()
        }
        defer { tasks.cancelAll() }
        guard let port = await ports.first(where: { _ in true }) else {
            try await tasks.waitForAll()
            throw HTTPTestFailure("the server stopped before it listened")
        }
        let result = try await body(port)
        await services.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return result
    }
}

struct HTTPTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A plain TCP client that writes whatever bytes a test wants (half a request
/// head, nothing at all) and reads what the server sends, so tests can act
/// as a slow or silent client. Every connection is closed by the client after
/// `giveUp` at the latest, so no test can hang on a server that never closes;
/// ``closedByClient`` tells that case apart. `giveUp` is a hang guard, not a
/// bound on the server: at 30 s it cut off streams of a parallel run on a loaded
/// 2-core machine ("connection closed", issue 29), so it is 300 s, far beyond
/// every timeout the tests wait for.
struct RawConnection {
    let channel: any Channel
    private var incoming: AsyncStream<ByteBuffer>.Iterator
    private var buffered: [UInt8] = []
    private let state: SharedState

    /// What the event loop side records for the test.
    final class SharedState: Sendable {
        let bytesReceived = Mutex(0)
        let closedByClient = Mutex(false)
    }

    /// A connection to the loopback port.
    static func open(port: Int, giveUp: Duration = .seconds(300)) async throws -> RawConnection {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let state = SharedState()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation, state))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        channel.eventLoop.scheduleTask(in: TimeAmount(giveUp)) {
            state.closedByClient.withLock { $0 = true }
            channel.close(promise: nil)
        }
        return RawConnection(channel: channel, incoming: stream.makeAsyncIterator(), state: state)
    }

    var bytesReceived: Int { state.bytesReceived.withLock { $0 } }
    var closedByClient: Bool { state.closedByClient.withLock { $0 } }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Sends a GET (keeping the connection open unless `close`) and reads the response.
    mutating func get(_ path: String, token: String? = nil, close: Bool = false) async throws -> RawResponse {
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        let connection = close ? "Connection: close\r\n" : ""
        try await send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)\(connection)\r\n")
        return try await response()
    }

    /// The next complete response (status line, headers, `Content-Length` body).
    mutating func response() async throws -> RawResponse {
        while true {
            if let response = RawResponse.parse(&buffered) { return response }
            guard let bytes = await incoming.next() else {
                throw HTTPTestFailure("connection closed \(closer) before a complete response")
            }
            buffered += bytes.readableBytesView
        }
    }

    /// Everything received up to and including the first `marker` after what earlier calls
    /// took, as text (a streamed body's chunk framing included).
    mutating func read(until marker: String) async throws -> String {
        while true {
            let text = String(decoding: buffered, as: UTF8.self)
            if let range = text.range(of: marker) {
                let taken = String(text[..<range.upperBound])
                buffered.removeFirst(taken.utf8.count)
                return taken
            }
            guard let bytes = await incoming.next() else {
                throw HTTPTestFailure("connection closed \(closer) before \"\(marker)\" (got \(text.prefix(300)))")
            }
            buffered += bytes.readableBytesView
        }
    }

    /// Who closed the connection, for failure messages.
    private var closer: String { closedByClient ? "by the client giving up" : "by the server" }

    /// Waits until the connection is closed (by either side; see ``closedByClient``).
    mutating func closed() async {
        while await incoming.next() != nil {}
    }

    /// Hands bytes and the end of the connection to the test.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<ByteBuffer>.Continuation
        let state: SharedState

        init(_ continuation: AsyncStream<ByteBuffer>.Continuation, _ state: SharedState) {
            self.continuation = continuation
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            state.bytesReceived.withLock { $0 += bytes.readableBytes }
            continuation.yield(bytes)
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
            context.fireChannelInactive()
        }
    }
}

/// An HTTP/1.1 response as the tests look at it.
struct RawResponse {
    var status: Int
    var body: String

    /// Takes one complete response off the front of `bytes`, if there is one.
    static func parse(_ bytes: inout [UInt8]) -> RawResponse? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) })
        else { return nil }
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let length =
            head.dropFirst().lazy.compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        let bodyStart = headEnd + 4
        guard bytes.count >= bodyStart + length else { return nil }
        let statusParts = head[0].split(separator: " ")
        let response = RawResponse(
            status: statusParts.count > 1 ? Int(statusParts[1]) ?? 0 : 0,
            body: String(decoding: bytes[bodyStart..<bodyStart + length], as: UTF8.self))
        bytes.removeFirst(bodyStart + length)
        return response
    }
}
