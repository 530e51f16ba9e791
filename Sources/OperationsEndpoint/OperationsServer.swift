public import HTTPServing
import Hummingbird
public import Logging
public import ServiceLifecycle
public import Telemetry

/// The operator's endpoints as a service beside the worker: started first and
/// stopped last (a service group stops in reverse order), so `/health` keeps
/// answering while the worker finishes its batches after SIGTERM and `/ready`
/// says "shutting down" meanwhile.
public struct OperationsServer: Service {
    public let host: String
    public let port: Int
    private let health: WorkerHealth
    private let metrics: OperationsMetrics
    private let logger: Logger
    private let onListening: @Sendable (Int) async -> Void

    public init(
        host: String, port: Int, health: WorkerHealth, metrics: OperationsMetrics, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.health = health
        self.metrics = metrics
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let logger = self.logger
        let application = HardenedHTTPServer.application(
            router: OperationsRoutes.router(health: health, metrics: metrics), host: host, port: port,
            limits: .operations, serverName: "intent-pipeline-operations", logger: logger
        ) { [onListening, host] port in
            logger.info("operator endpoints listening", metadata: ["address": "\(host):\(port)"])
            await onListening(port)
        }
        try await application.run()
    }
}

extension HTTPServerLimits {
    /// Probes and scrapes: a handful of connections, quick requests, and a scraper
    /// that stops reading is cut off after 10 s.
    public static let operations = HTTPServerLimits(
        headerTimeout: .seconds(5), idleTimeout: .seconds(60), maxConnections: 64, writeTimeout: .seconds(10))
}
