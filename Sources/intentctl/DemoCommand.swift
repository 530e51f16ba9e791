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
            Starts a local broker, the resolve, confirm, payments and handle workers as separate \
            processes, and plays scripts/demo/conversation.json through the simulated voice service: \
            English, Chinese and Russian, a disambiguation, a declined payment, an insufficient-funds \
            payment and a payment request. Prints the transcript and the balances, then stops \
            everything. Exits 0 only if the conversation went as scripted. Ctrl-C stops it cleanly.

            --smoke instead publishes envelopes for three users and checks that every event arrived \
            once, in order per user, and decodes strictly.
            """)

    @Flag(help: "Run the Kafka smoke flow instead of the pipeline.") var smoke = false
    @Flag(
        inversion: .prefixedNo,
        help: "Keep everything running after the conversation, until Ctrl-C (default: when interactive and not CI).")
    var keep: Bool?
    @Option(help: "Events per user (--smoke).") var events = 5
    @Option(help: "Kafka brokers to use instead of starting an embedded one.") var bootstrapServers: String?
    @Option(help: "Prefix of the demo's topics. Default: demo-<random>. (a fresh set per run).")
    var topicPrefix: String?
    @Option(
        help:
            "Directory for the run's keys and the app-state database, kept afterwards. Default: a temporary one, deleted at the end."
    )
    var stateDir: String?
    @Option(help: "Directory for the broker's and the workers' logs. Default: $TMPDIR/intent-demo-<pid>.")
    var logDir: String?
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = try logging.makeLogger(label: "intentctl.demo")
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        let logDirectory =
            logDir.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("intent-demo-\(getpid())")
        let bootstrap: String
        if let bootstrapServers {
            bootstrap = bootstrapServers
        } else {
            let broker = try await LocalBroker.start(LocalBroker.Options(logDirectory: logDirectory))
            output("▶ embedded broker (Tansu) at \(broker.bootstrapServers), logs in \(logDirectory.path)")
            services.append(.init(service: LocalBrokerService(broker: broker)))
            bootstrap = broker.bootstrapServers
        }
        if smoke {
            try await runSmoke(services, bootstrap, logger)
            return
        }
        guard let root = ToolLocator.projectRoot() else {
            throw ValidationError("Run the demo from the intent-pipeline checkout (it reads scripts/demo/).")
        }
        let interactive = ProcessInfo.processInfo.environment["CI"] != "true" && isatty(STDIN_FILENO) == 1
        let demo = PipelineDemo(
            bootstrapServers: bootstrap, root: root, keepRunning: keep ?? interactive,
            topicPrefix: topicPrefix ?? "demo-\(UUID().uuidString.prefix(6).lowercased()).",
            stateDirectory: stateDir.map { URL(fileURLWithPath: $0) }, logDirectory: logDirectory, logger: logger)
        services.append(
            .init(
                service: demo, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        guard demo.outcome.succeeded else {
            for failure in demo.outcome.failures { output("✘ \(failure)") }
            output("✘ demo failed")
            throw ExitCode.failure
        }
        output("✔ demo finished: the conversation went as scripted")
    }

    private func runSmoke(
        _ services: [ServiceGroupConfiguration.ServiceConfiguration], _ bootstrap: String, _ logger: Logger
    ) async throws {
        var services = services
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
