public import Hummingbird
import HummingbirdCore
public import Logging

/// The app-state HTTP server as `intent-appstate` runs it: one place that
/// turns ``HTTPServerLimits`` into hummingbird settings, so that the tests
/// start exactly the server the executable does.
public enum AppStateServer {
    /// The application serving `router` on `host:port` (port 0: any free
    /// port) within `limits`; `onListening` gets the port actually bound.
    public static func application(
        router: Router<BasicRequestContext>, host: String, port: Int, limits: HTTPServerLimits, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<BasicRequestContext>> {
        Application(
            router: router,
            server: HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits) },
            configuration: .init(
                address: .hostname(host, port: port), serverName: "intent-appstate",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
