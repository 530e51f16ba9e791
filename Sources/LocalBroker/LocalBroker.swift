public import Foundation
import Synchronization

/// A real Kafka-protocol broker (Tansu) on the loopback interface, for tests,
/// the demo and local development. Memory storage by default; durable storage
/// on a local S3 server survives a broker restart.
///
/// TLS: Tansu 0.6.0 declares its `--cert` and `--key` options as mutually
/// exclusive, so it cannot serve TLS itself. With ``Options/tls`` the broker
/// listens on a private port and advertises the public one, where `socat`
/// terminates TLS; every client connection, bootstrap and after, is TLS.
public final class LocalBroker: Sendable {
    public struct Options: Sendable {
        /// Nil picks a free port.
        public var port: Int?
        /// Keep records in S3 storage on a local S3 server instead of memory.
        public var durable: Bool
        /// Where log files go.
        public var logDirectory: URL
        /// PEM certificate and key files: the broker is then reachable over TLS only.
        public var tls: (certificate: String, key: String)?
        /// Outlive this process (for `intentctl broker start`).
        public var detached: Bool

        public init(
            port: Int? = nil, durable: Bool = false,
            logDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("intent-pipeline-broker"),
            tls: (certificate: String, key: String)? = nil, detached: Bool = false
        ) {
            self.port = port
            self.durable = durable
            self.logDirectory = logDirectory
            self.tls = tls
            self.detached = detached
        }
    }

    public let port: Int
    public let options: Options
    public let storage: LocalS3Server?
    private let current: Mutex<[ManagedProcess]>

    /// `host:port` for `bootstrap.servers`.
    public var bootstrapServers: String { "\(Loopback.host):\(port)" }
    /// The broker process (first) and the TLS terminator, if any.
    public var processes: [ManagedProcess] { current.withLock { $0 } }

    private init(port: Int, options: Options, storage: LocalS3Server?, processes: [ManagedProcess]) {
        self.port = port
        self.options = options
        self.storage = storage
        self.current = Mutex(processes)
    }

    public static func start(_ options: Options = Options()) async throws -> LocalBroker {
        let storage =
            options.durable
            ? try await LocalS3Server.start(logDirectory: options.logDirectory, detached: options.detached) : nil
        // A port picked here was free a moment ago; if something took it
        // before the broker bound it, the broker exits and another is picked.
        var attempt = 1
        while true {
            let port = try options.port ?? Loopback.freePort()
            do {
                let processes = try await launch(port: port, options: options, storage: storage)
                return LocalBroker(port: port, options: options, storage: storage, processes: processes)
            } catch LocalBrokerError.exited where options.port == nil && attempt < 3 {
                attempt += 1
            } catch {
                await storage?.process.stop()
                throw error
            }
        }
    }

    private static func launch(port: Int, options: Options, storage: LocalS3Server?) async throws -> [ManagedProcess] {
        let tansu = try ToolLocator.tansu()
        let brokerPort = options.tls == nil ? port : try Loopback.freePort()
        let arguments = [
            "broker",
            "--listener-url", "tcp://\(Loopback.host):\(brokerPort)",
            "--advertised-listener-url", "tcp://\(Loopback.host):\(port)",
            "--storage-engine", storage.map { "s3://\($0.bucket)/" } ?? "memory://tansu/",
        ]
        let broker = try ManagedProcess(
            name: "Tansu broker", executable: tansu, arguments: arguments,
            environment: storage?.clientEnvironment ?? [:],
            logFile: options.logDirectory.appendingPathComponent("tansu-\(port).log"), detached: options.detached)
        try await Loopback.waitUntilAccepting(
            port: brokerPort, process: broker, name: broker.name, timeout: .seconds(30))
        guard let tls = options.tls else { return [broker] }
        let terminator = try ManagedProcess(
            name: "TLS terminator (socat)", executable: try ToolLocator.executable(named: "socat"),
            arguments: [
                "OPENSSL-LISTEN:\(port),bind=\(Loopback.host),reuseaddr,fork,cert=\(tls.certificate),key=\(tls.key),verify=0",
                "TCP:\(Loopback.host):\(brokerPort)",
            ],
            logFile: options.logDirectory.appendingPathComponent("tls-\(port).log"), detached: options.detached)
        try await Loopback.waitUntilAccepting(
            port: port, process: terminator, name: terminator.name, timeout: .seconds(30))
        return [broker, terminator]
    }

    /// SIGKILL the broker, as in a crash. Storage (if durable) keeps running.
    public func kill() async {
        for process in processes { await process.kill() }
    }

    /// Freezes the broker (SIGSTOP) with its state and connections intact: an outage
    /// that does not depend on what the broker's storage keeps across a crash.
    public func suspend() {
        for process in processes { process.suspend() }
    }

    /// Continues a broker frozen by ``suspend()``.
    public func resume() {
        for process in processes { process.resume() }
    }

    /// Starts the broker again on the same port and storage, e.g. after ``kill()``.
    public func restart() async throws {
        for process in processes where process.isRunning { await process.stop() }
        let new = try await Self.launch(port: port, options: options, storage: storage)
        current.withLock { $0 = new }
    }

    /// Stops the broker and its storage server.
    public func stop() async {
        for process in processes { await process.stop() }
        await storage?.process.stop()
    }
}
