public import ServiceLifecycle

/// Runs a local broker until the service group shuts down (SIGINT/SIGTERM),
/// then stops it: for `intentctl broker start --foreground` and the demo.
public struct LocalBrokerService: Service {
    public let broker: LocalBroker

    public init(broker: LocalBroker) {
        self.broker = broker
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await broker.stop()
    }
}
