import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import LocalBroker
import LocalBrokerRecord
import ServiceLifecycle

struct BrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Run a local Kafka-compatible broker (Tansu) for development and tests.",
        subcommands: [Start.self, Stop.self, Status.self]
    )

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the local broker on loopback and print its bootstrap address.",
            discussion: """
                Prints host:port on standard output, so scripts can use \
                `export KAFKA_BOOTSTRAP_SERVERS=$(intentctl broker start)`; when one is already running (with \
                the same --port and --durable), prints its address and exits 0. With --durable, records \
                live in S3 storage on a local S3 server (moto) and survive a restart of the broker; \
                `intentctl broker stop` stops both.
                """)

        @Option(help: "Port to listen on. Default: a free port.")
        var port: Int?

        @Flag(help: "Keep records in S3 storage on a local S3 server instead of memory.")
        var durable = false

        @Flag(help: "Stay in the foreground until Ctrl-C or SIGTERM instead of detaching.")
        var foreground = false

        @OptionGroup var state: StateOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.makeLogger(label: "intentctl.broker")
            if let existing = try BrokerState.load(from: state.directory), !existing.runningChildren.isEmpty {
                // Already running as asked: say where, as a second start of a service does, and succeed.
                guard !foreground, port == nil || port == existing.port, durable == existing.durable else {
                    throw CommandFailure(
                        "A local broker is already running at \(existing.bootstrapServers)\(existing.durable ? " (durable)" : ""), not as asked; stop it first with `intentctl broker stop`."
                    )
                }
                logger.notice(
                    "a local broker is already running", metadata: ["bootstrap": "\(existing.bootstrapServers)"])
                output(existing.bootstrapServers)
                return
            }
            let options = LocalBroker.Options(
                port: port, durable: durable, logDirectory: state.directory.appendingPathComponent("logs"),
                detached: !foreground)
            let broker = try await LocalBroker.start(options)
            logger.info(
                "local broker started",
                metadata: [
                    "bootstrap": "\(broker.bootstrapServers)", "durable": "\(durable)",
                    "logs": "\(options.logDirectory.path)",
                ])
            output(broker.bootstrapServers)
            if foreground {
                let group = ServiceGroup(
                    configuration: .init(
                        services: [LocalBrokerService(broker: broker)], gracefulShutdownSignals: [.sigterm, .sigint],
                        logger: logger))
                try await group.run()
            } else {
                try BrokerState(broker: broker).save(in: state.directory)
            }
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the local broker (and its S3 server) started by `broker start`.")

        @OptionGroup var state: StateOptions

        func run() async throws {
            guard let recorded = try BrokerState.load(from: state.directory) else {
                output("no local broker recorded in \(state.directory.path)")
                return
            }
            let stopped = await recorded.stop(stateDirectory: state.directory)
            output(stopped.isEmpty ? "local broker was not running" : "stopped: \(stopped.joined(separator: ", "))")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show whether the local broker runs. Exit status 0: running, 3: not running.")

        @OptionGroup var state: StateOptions
        @Flag(help: "Print one JSON object instead of text (the exit status is the same).") var json = false

        func run() async throws {
            guard let recorded = try BrokerState.load(from: state.directory) else {
                if json {
                    let status = JSONValue.object([
                        "running": .bool(false), "stateDirectory": .string(state.directory.path),
                    ])
                    output(String(decoding: CanonicalJSON.encode(status), as: UTF8.self))
                } else {
                    output("not running (nothing recorded in \(state.directory.path))")
                }
                throw ExitCode(3)
            }
            let running = recorded.runningChildren
            let accepting = recorded.isAccepting
            if json {
                let children = recorded.children.map { child in
                    JSONValue.object([
                        "name": .string(child.name), "pid": .integer(Int64(child.pid)),
                        "running": .bool(running.contains(child)),
                    ])
                }
                let status = JSONValue.object([
                    "running": .bool(accepting), "bootstrapServers": .string(recorded.bootstrapServers),
                    "storage": .string(recorded.durable ? "s3" : "memory"),
                    "s3Endpoint": recorded.s3Endpoint.map(JSONValue.string) ?? .null,
                    "processes": .array(children), "logDirectory": .string(recorded.logDirectory),
                ])
                output(String(decoding: CanonicalJSON.encode(status), as: UTF8.self))
            } else {
                output("bootstrap: \(recorded.bootstrapServers)")
                output("accepting connections: \(accepting ? "yes" : "no")")
                output("storage: \(recorded.durable ? "s3 at \(recorded.s3Endpoint ?? "?")" : "memory")")
                for child in recorded.children {
                    output("\(child.name) (pid \(child.pid)): \(running.contains(child) ? "running" : "stopped")")
                }
                output("logs: \(recorded.logDirectory)")
            }
            if !accepting { throw ExitCode(3) }
        }
    }
}
