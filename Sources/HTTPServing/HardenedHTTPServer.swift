public import Hummingbird
import HummingbirdCore
public import Logging

/// A hummingbird server within ``HTTPServerLimits`` (header-read timeout,
/// idle timeout, a cap on connections): the one way this project serves
/// HTTP, for the app-state API and the workers' operator endpoints alike,
/// so both refuse slow-loris clients and connection floods the same way.
public enum HardenedHTTPServer {
    /// The application serving `router` on `host:port` (port 0: any free
    /// port) within `limits`; `onListening` gets the port actually bound.
    public static func application<Context: RequestContext>(
        router: Router<Context>, host: String, port: Int, limits: HTTPServerLimits, serverName: String,
        logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<Context>> {
        Application(
            router: router,
            server: HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits) },
            configuration: .init(
                address: .hostname(host, port: port), serverName: serverName,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
