public import ArgumentParser
import Foundation
import IntentCrypto
public import IntentEvents
public import IntentResolution
import IntentWorkers
public import Kafka
public import Logging
public import ServiceLifecycle

/// What every worker executable takes: the topics, whether to create them,
/// and the consumer group.
public struct WorkerOptions: ParsableArguments {
    public init() {}

    @OptionGroup public var topicOptions: TopicOptions

    @Option(
        help:
            "Consumer group; every instance of this worker uses the same. Default: $INTENT_<WORKER>_GROUP, else the worker's name."
    )
    public var group: String?

    @Flag(help: "Create the pipeline's topics if they do not exist (development; production topics are provisioned).")
    public var createTopics = false

    public func groupID(worker: String) -> String {
        let variable = "INTENT_\(worker.uppercased())_GROUP"
        return group ?? ProcessInfo.processInfo.environment[variable] ?? "intent-\(worker)"
    }

    /// Checks (or creates) the topics, then runs the worker until SIGTERM or SIGINT.
    public func run(
        _ worker: some Service, needs topics: [String], client: KafkaConfiguration, logger: Logger
    ) async throws {
        let pipeline = topicOptions.topics
        let createTopics = self.createTopics
        try await KafkaAdminClient.with(configuration: client, logger: logger) { admin in
            if createTopics { try await admin.createTopics(pipeline.specifications()) }
            let existing = Set(try await admin.listTopics())
            let missing = topics.filter { !existing.contains($0) }
            if !missing.isEmpty {
                throw ValidationError(
                    "Missing topics: \(missing.joined(separator: ", ")). Provision them (intentctl topics provision, or deploy/README.md), or pass --create-topics on a development broker."
                )
            }
        }
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: worker)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await serviceGroup.run()
    }
}

/// Currency limits, shared by the resolve and confirm workers.
public struct AmountOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "Supported currencies and limits as CODE:MIN:MAX,… Default: $INTENT_CURRENCIES, else CNY:0.01:50000,EUR:0.01:10000,GBP:0.01:10000,RUB:1:500000,USD:0.01:10000.",
            valueName: "list"))
    public var currencies: String?

    public func policy() throws -> AmountPolicy {
        do {
            return try (currencies ?? ProcessInfo.processInfo.environment["INTENT_CURRENCIES"]).map(AmountPolicy.parse)
                ?? .default
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// Secrets come from files or the environment, never from flags' values on
/// a command line (visible in `ps`) and never from the repository.
public enum Secrets {
    /// The contents of the file named by `fileVariable`, else the value of
    /// `variable`. A file others could read is refused (``KeyFilePermissions``).
    public static func read(fileVariable: String, variable: String, file: String?) throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = file ?? environment[fileVariable] {
            try KeyFilePermissions.check(path)
            do {
                return try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
            }
        }
        return environment[variable]
    }

    /// The payments binding key (hex, at least 32 bytes), shared by the confirm and payments workers.
    public static func bindingKey(file: String?) throws -> [UInt8] {
        try hexKey("binding key", flag: "--binding-key-file", variable: "INTENT_BINDING_KEY", file: file)
    }

    /// A key of at least 32 bytes written as hex, from `--flag FILE`, `$VARIABLE_FILE` or `$VARIABLE`.
    public static func hexKey(_ name: String, flag: String, variable: String, file: String?) throws -> [UInt8] {
        guard
            let text = try read(fileVariable: variable + "_FILE", variable: variable, file: file),
            let key = Digest.bytes(hex: text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count >= 32
        else {
            throw ValidationError(
                "No \(name) of at least 32 bytes: pass \(flag) FILE, or set \(variable)_FILE or \(variable) (hex).")
        }
        return key
    }

    /// A comma-separated list from a flag, else from the environment; nil when neither is set.
    public static func list(_ flag: String?, variable: String) -> [String]? {
        (flag ?? ProcessInfo.processInfo.environment[variable]).map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Voice services' signing keys: `SOURCE HEXKEY` lines.
    public static func sourceKeys(file: String?) throws -> EventAuthenticator {
        guard let text = try read(fileVariable: "INTENT_SOURCE_KEYS_FILE", variable: "INTENT_SOURCE_KEYS", file: file)
        else {
            throw ValidationError(
                "No voice-service keys: pass --source-keys FILE, or set INTENT_SOURCE_KEYS_FILE or INTENT_SOURCE_KEYS (lines \"SOURCE HEXKEY\")."
            )
        }
        do {
            return EventAuthenticator(keys: try EventAuthenticator.parseKeys(text, origin: "source keys"))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
