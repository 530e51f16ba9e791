public import ArgumentParser
public import Foundation
public import Kafka
import LocalBrokerRecord
public import Logging

/// Kafka connection options shared by every command that talks to a cluster.
public struct KafkaOptions: ParsableArguments {
    public init() {}

    @Option(
        name: .long,
        help:
            "Comma-separated host:port list. Default: $KAFKA_BOOTSTRAP_SERVERS, else the broker `intentctl broker start` left running."
    )
    public var bootstrapServers: String?

    @Option(
        name: .customLong("kafka-property"),
        help: ArgumentHelp(
            "Any librdkafka property, as key=value. Repeatable; wins over the environment.", valueName: "key=value"))
    public var kafkaProperties: [String] = []

    @OptionGroup public var state: StateOptions

    /// Flags over environment over the running local broker.
    public func configuration(clientID: String = "intentctl") throws -> KafkaConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration =
            KafkaConfiguration.fromEnvironment(environment, clientID: clientID)
            ?? KafkaConfiguration(bootstrapServers: [], clientID: clientID)
        if let bootstrapServers {
            configuration.bootstrapServers = bootstrapServers.split(separator: ",").map(String.init)
        }
        if configuration.bootstrapServers.isEmpty {
            guard let running = try BrokerState.load(from: state.directory) else {
                throw ValidationError(
                    "No Kafka brokers given: pass --bootstrap-servers, set KAFKA_BOOTSTRAP_SERVERS, or run `intentctl broker start`."
                )
            }
            configuration.bootstrapServers = [running.bootstrapServers]
        }
        // KAFKA_<PROPERTY>_FILE: the value from a mounted Secret, checked like the pipeline's keys.
        for (property, path) in KafkaConfiguration.propertyFiles(fromEnvironment: environment) {
            configuration.properties[property] = try Secrets.contents(ofFile: path, for: property)
                .trimmingCharacters(in: .newlines)
        }
        configuration.properties.merge(try KafkaConfiguration.parseProperties(kafkaProperties)) { $1 }
        // The TLS client key librdkafka will read is held to the same rule as the pipeline's keys.
        if let key = configuration.librdkafkaProperties["ssl.key.location"] { try KeyFilePermissions.check(key) }
        return configuration
    }
}

/// Where `intentctl broker` keeps its state and logs.
public struct StateOptions: ParsableArguments {
    public init() {}

    @Option(
        name: .long,
        help: "State directory for the local broker. Default: $INTENT_STATE_DIR, else .intent in the checkout.")
    public var stateDir: String?

    public var directory: URL {
        if let stateDir { return URL(fileURLWithPath: stateDir) }
        if let fromEnvironment = ProcessInfo.processInfo.environment["INTENT_STATE_DIR"], !fromEnvironment.isEmpty {
            return URL(fileURLWithPath: fromEnvironment)
        }
        let root = ProjectRoot.find() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return root.appendingPathComponent(".intent")
    }
}

public struct LoggingOptions: ParsableArguments {
    public init() {}

    @Option(
        name: .long, help: "trace, debug, info, notice, warning, error or critical. Default: $LOG_LEVEL, else info.")
    public var logLevel: String?

    /// A log level (from the flag or `LOG_LEVEL`) or `LOG_FORMAT` that is not one is refused
    /// before the command does anything, never ignored.
    public func validate() throws { _ = try level() }

    func level() throws -> Logger.Level {
        let fromFlag = logLevel != nil
        let text = logLevel ?? ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: text.lowercased().trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError(
                "Unknown log level \(fromFlag ? "--log-level" : "LOG_LEVEL")=\(text): use trace, debug, info, notice, warning, error or critical."
            )
        }
        do {
            _ = try LogFormat.from(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
        return level
    }

    public func makeLogger(label: String) throws -> Logger {
        let level = try level()
        LoggingBootstrap.once
        IgnoreBrokenPipe.once
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}

/// Logs go to standard error, so standard output stays for results that scripts read;
/// as text, or as one JSON object per line with `LOG_FORMAT=json` (``JSONLogHandler``).
enum LoggingBootstrap {
    /// Runs once, at the first logger made, after `LOG_FORMAT` was checked.
    static let once: Void = {
        switch (try? LogFormat.from(environment: ProcessInfo.processInfo.environment)) ?? .text {
        case .text: LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        case .json: LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        }
    }()
}

/// Writes a line to standard output unbuffered, so transcripts appear as
/// they happen even through a pipe.
/// A closed pipe (`intentctl … | head`) makes writes fail instead of killing
/// the process with SIGPIPE, so child brokers are still stopped on the way out.
public func output(_ line: String) {
    IgnoreBrokenPipe.once
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}

enum IgnoreBrokenPipe {
    static let once: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
}
