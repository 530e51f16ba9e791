import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Sends finished spans to an OpenTelemetry collector: OTLP/HTTP with a JSON
/// body (`POST /v1/traces`), batched, from a thread of its own, so neither a
/// worker's loop nor the cooperative thread pool ever waits on the collector.
///
/// At most ``maximumQueued`` spans wait; beyond that the oldest are dropped
/// and counted (a slow collector must not grow a worker's memory). A failed
/// POST is logged to standard error once per minute, with the spans dropped
/// for a full queue since the last line, and its spans dropped:
/// tracing is best effort, the pipeline's own records are the audit trail.
/// Plain `http://` only: in a cluster the collector is a sidecar or a node
/// agent, and TLS to a remote one is the collector's own job.
final class OTLPExporter: @unchecked Sendable {
    static let maximumQueued = 10_000
    static let batchSize = 512
    static let interval: TimeInterval = 0.5

    private let host: String
    private let port: UInt16
    private let path: String
    private let serviceName: String
    /// Guards everything below it.
    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var dropped = 0
    private var closing = false
    private var finished = false
    private var lastComplaint: Date?

    init(endpoint: URL, serviceName: String) throws {
        guard endpoint.scheme == "http", let host = endpoint.host, !host.isEmpty else {
            throw OTLPExporterError.unsupportedEndpoint(endpoint.absoluteString)
        }
        self.host = host
        self.port = UInt16(endpoint.port ?? 4318)
        self.path = endpoint.path.isEmpty ? "/v1/traces" : endpoint.path
        self.serviceName = serviceName
        // The thread holds the exporter until `close()` ends its loop.
        let thread = Thread { self.loop() }
        thread.name = "otlp-exporter"
        thread.start()
    }

    /// Queues one finished span (an OTLP/JSON `Span` object).
    func export(_ span: [UInt8]) {
        condition.withLock {
            guard !closing else { return }
            if queue.count >= Self.maximumQueued {
                queue.removeFirst()
                dropped += 1
            }
            queue.append(span)
            if queue.count >= Self.batchSize { condition.signal() }
        }
    }

    /// Sends what is queued now, without waiting for the interval.
    func flush() { condition.withLock { condition.signal() } }

    /// Sends what is queued, then stops the thread (waits for it).
    func close() {
        condition.withLock {
            closing = true
            condition.signal()
        }
        condition.withLock {
            while !finished { condition.wait() }
        }
    }

    private func loop() {
        while true {
            let (batch, stop): ([[UInt8]], Bool) = condition.withLock {
                if queue.count < Self.batchSize && !closing {
                    _ = condition.wait(until: Date().addingTimeInterval(Self.interval))
                }
                let batch = Array(queue.prefix(Self.batchSize))
                queue.removeFirst(batch.count)
                return (batch, closing && queue.isEmpty)
            }
            if !batch.isEmpty { send(batch) }
            if stop { break }
        }
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    /// One `ExportTraceServiceRequest` with the batch, in JSON.
    func body(_ batch: [[UInt8]]) -> [UInt8] {
        var body = Array(
            (#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"#
                + OTLPSpan.quoted(serviceName)
                + #"}}]},"scopeSpans":[{"scope":{"name":"intent-pipeline"},"spans":["#).utf8)
        for (index, span) in batch.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += span
        }
        body += Array("]}]}]}".utf8)
        return body
    }

    private func send(_ batch: [[UInt8]]) {
        let payload = body(batch)
        do {
            let status = try HTTPPost.send(host: host, port: port, path: path, body: payload)
            guard (200..<300).contains(status) else { throw OTLPExporterError.status(status) }
        } catch {
            let now = Date()
            let overflowed: Int? = condition.withLock {
                guard lastComplaint.map({ now.timeIntervalSince($0) > 60 }) ?? true else { return nil }
                lastComplaint = now
                defer { dropped = 0 }
                return dropped
            }
            if let overflowed {
                FileHandle.standardError.write(
                    Data(
                        ("otlp exporter: \(batch.count) spans to \(host):\(port)\(path) not sent: \(error); "
                            + "\(overflowed) dropped for a full queue since the last report\n").utf8))
            }
        }
    }
}

enum OTLPExporterError: Error, CustomStringConvertible {
    case unsupportedEndpoint(String)
    case status(Int)
    case connection(String)

    var description: String {
        switch self {
        case .unsupportedEndpoint(let endpoint):
            "OTLP endpoint \(endpoint): expected http://HOST[:PORT]/v1/traces (a collector or sidecar; no TLS)"
        case .status(let status): "the collector answered HTTP \(status)"
        case .connection(let reason): reason
        }
    }
}

/// A blocking HTTP/1.1 POST over a plain socket; returns the status code.
/// Only ever called from the exporter's own thread.
enum HTTPPost {
    static func send(host: String, port: UInt16, path: String, body: [UInt8], timeoutSeconds: Int = 5) throws -> Int {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
            throw OTLPExporterError.connection("cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        let socket = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard socket >= 0 else { throw OTLPExporterError.connection("socket: errno \(errno)") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw OTLPExporterError.connection("connect to \(host):\(port): errno \(errno)")
        }
        let head =
            "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try write(Array(head.utf8) + body, to: socket)
        // The status line is all we need: "HTTP/1.1 200 OK".
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !response.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        let statusLine = String(decoding: response.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw OTLPExporterError.connection("no HTTP status from \(host):\(port)")
        }
        return status
    }

    private static func write(_ bytes: [UInt8], to socket: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw OTLPExporterError.connection("send: errno \(errno)") }
            offset += written
        }
    }
}
