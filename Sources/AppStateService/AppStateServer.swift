public import HTTPServing
public import Hummingbird
public import Logging

/// The app-state HTTP server as `intent-appstate` runs it, so that the tests
/// start exactly the server the executable does.
public enum AppStateServer {
    /// The application serving `router` on `host:port` (port 0: any free
    /// port) within `limits`; `onListening` gets the port actually bound.
    public static func application(
        router: Router<BasicRequestContext>, host: String, port: Int, limits: HTTPServerLimits, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<BasicRequestContext>> {
        HardenedHTTPServer.application(
            router: router, host: host, port: port, limits: limits, serverName: "intent-appstate", logger: logger,
            onListening: onListening)
    }
}
