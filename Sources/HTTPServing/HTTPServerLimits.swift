import Foundation

/// How long the app-state HTTP server waits for a client, and how many
/// clients it serves at once.
///
/// Without these, a client that connects and says nothing, or sends its
/// request head a byte at a time (slowloris), keeps a connection, and so a
/// file descriptor, forever: enough of them exhaust the process's descriptors
/// and even `/health` stops answering. With them:
/// - a request head must be complete within ``headerTimeout`` of the first
///   byte of that request, or of the connection opening (a client that
///   connects and sends nothing is held that long at most);
/// - a connection with no request in flight is closed after ``idleTimeout``
///   without a new request; a request in flight (a long poll waits up to 60 s)
///   is never cut by it;
/// - a connection whose responses stop draining (the client stopped reading) is
///   closed after ``writeTimeout`` without progress;
/// - at most ``maxConnections`` connections are served; further ones wait in
///   the listen backlog (and the kernel refuses them once it is full) until
///   one closes.
public struct HTTPServerLimits: Sendable, Hashable {
    public var headerTimeout: Duration
    public var idleTimeout: Duration
    public var maxConnections: Int
    /// How long a response may stay stalled (more unsent bytes than the channel's
    /// high-water mark, none of them taken by the client) before the connection is closed.
    public var writeTimeout: Duration

    public init(
        headerTimeout: Duration, idleTimeout: Duration, maxConnections: Int,
        writeTimeout: Duration = Self.defaultWriteTimeout
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.writeTimeout = writeTimeout
    }

    /// 30 s: a client on the poorest link takes some of a response within that.
    public static let defaultWriteTimeout: Duration = .seconds(30)

    /// 10 s for a request head (generous for any real client, even on a poor
    /// mobile link), 60 s idle (longer than the web page's long poll cycle),
    /// 30 s for a stalled response, and ``defaultMaxConnections(fileDescriptorLimit:)``
    /// connections.
    public static var defaults: HTTPServerLimits {
        HTTPServerLimits(
            headerTimeout: .seconds(10), idleTimeout: .seconds(60),
            maxConnections: defaultMaxConnections(fileDescriptorLimit: FileDescriptorLimit.current),
            writeTimeout: defaultWriteTimeout)
    }

    /// Descriptors kept for everything that is not a client connection: the
    /// SQLite files, librdkafka's sockets to each broker, pipes, the listener.
    public static let reservedDescriptors = 256

    /// 4096 connections, or fewer when the descriptor limit would not leave
    /// ``reservedDescriptors`` for the rest of the process (never fewer than
    /// 32): the cap must bite before the descriptors run out, or it protects
    /// nothing.
    public static func defaultMaxConnections(fileDescriptorLimit: Int) -> Int {
        max(32, min(4096, fileDescriptorLimit - reservedDescriptors))
    }

    /// The limits from the command line (`--header-timeout`, `--idle-timeout`,
    /// `--write-timeout` in seconds, `--max-connections`), else the environment
    /// (`INTENT_APPSTATE_HEADER_TIMEOUT`, `INTENT_APPSTATE_IDLE_TIMEOUT`,
    /// `INTENT_APPSTATE_WRITE_TIMEOUT`, `INTENT_APPSTATE_MAX_CONNECTIONS`), else ``defaults``. A value that is
    /// not a positive number is an error, not a silent default: a typo must
    /// not quietly turn a protection off.
    public static func resolve(
        headerTimeout: Double?, idleTimeout: Double?, writeTimeout: Double? = nil, maxConnections: Int?,
        environment: [String: String]
    ) throws -> HTTPServerLimits {
        func setting<T: LosslessStringConvertible & Comparable & Numeric>(
            _ flag: T?, _ name: String, _ variable: String
        ) throws -> T? {
            let source = "--\(name) or \(variable)"
            let value: T
            if let flag {
                value = flag
            } else if let text = environment[variable] {
                guard let parsed = T(text.trimmingCharacters(in: .whitespaces)) else {
                    throw InvalidLimit(setting: source, value: text)
                }
                value = parsed
            } else {
                return nil
            }
            guard value > .zero else { throw InvalidLimit(setting: source, value: "\(value)") }
            return value
        }
        func timeout(_ flag: Double?, _ name: String, _ variable: String) throws -> Duration? {
            try setting(flag, name, variable).map { seconds in
                guard seconds.isFinite, seconds <= 86_400 else {
                    throw InvalidLimit(setting: "--\(name) or \(variable)", value: "\(seconds)")
                }
                return .milliseconds(Int64((seconds * 1000).rounded(.up)))
            }
        }
        let defaults = Self.defaults
        return HTTPServerLimits(
            headerTimeout: try timeout(headerTimeout, "header-timeout", "INTENT_APPSTATE_HEADER_TIMEOUT")
                ?? defaults.headerTimeout,
            idleTimeout: try timeout(idleTimeout, "idle-timeout", "INTENT_APPSTATE_IDLE_TIMEOUT")
                ?? defaults.idleTimeout,
            maxConnections: try setting(maxConnections, "max-connections", "INTENT_APPSTATE_MAX_CONNECTIONS")
                ?? defaults.maxConnections,
            writeTimeout: try timeout(writeTimeout, "write-timeout", "INTENT_APPSTATE_WRITE_TIMEOUT")
                ?? defaults.writeTimeout)
    }

    /// A limit that is not a positive number (timeouts: at most a day).
    public struct InvalidLimit: Error, CustomStringConvertible {
        public var setting: String
        public var value: String
        public var description: String { "\(setting) must be a positive number, not \"\(value)\"" }
    }
}
