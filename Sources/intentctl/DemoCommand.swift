import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import Kafka
import LocalBroker
import Logging
import ServiceLifecycle

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the demo on an embedded local broker (or the cluster you name).",
        discussion: """
            Until the workers exist this is a smoke flow: start a local broker, create a topic, \
            publish envelopes for three users, consume them in a consumer group, and check that \
            every event arrived once, in order per user, and decodes strictly. Exits 0 only if \
            it all went as expected. Ctrl-C stops it cleanly.
            """)

    @Option(help: "Events per user.") var events = 5
    @Option(help: "Kafka brokers to use instead of starting an embedded one.") var bootstrapServers: String?
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = try logging.makeLogger(label: "intentctl.demo")
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        let bootstrap: String
        if let bootstrapServers {
            bootstrap = bootstrapServers
        } else {
            let logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("intent-demo-\(getpid())")
            let broker = try await LocalBroker.start(LocalBroker.Options(logDirectory: logDirectory))
            output("▶ embedded broker (Tansu) at \(broker.bootstrapServers), logs in \(logDirectory.path)")
            services.append(.init(service: LocalBrokerService(broker: broker)))
            bootstrap = broker.bootstrapServers
        }
        let flow = SmokeFlow(bootstrapServers: bootstrap, eventsPerUser: events, logger: logger)
        // The flow ends the group when it finishes or fails; the broker stops last.
        services.append(
            .init(
                service: flow, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        guard flow.outcome.succeeded else {
            output("✘ demo failed: \(flow.outcome.failure ?? "interrupted")")
            throw ExitCode.failure
        }
        output("✔ demo finished: every event arrived once, in order per user, and decoded strictly")
    }
}
