public import ArgumentParser
import Foundation
import IntentCrypto
public import IntentEvents
public import IntentResolution
public import IntentWorkers
public import Kafka
public import Logging
import OperationsEndpoint
public import ServiceLifecycle
import Telemetry

/// What every worker executable takes: the topics, whether to create them,
/// and the consumer group.
public struct WorkerOptions: ParsableArguments {
    public init() {}

    @OptionGroup public var topicOptions: TopicOptions
    @OptionGroup public var operations: OperationsOptions

    @Option(
        help:
            "Consumer group; every instance of this worker uses the same. Default: $INTENT_<WORKER>_GROUP, else the worker's name."
    )
    public var group: String?

    @Flag(help: "Create the pipeline's topics if they do not exist (development; production topics are provisioned).")
    public var createTopics = false

    @Option(
        help: ArgumentHelp(
            "How long the worker rides out a broker outage (retrying with backoff) before it exits non-zero, e.g. 300, 90s, 5m. Default: $INTENT_GIVE_UP_AFTER, else 5m.",
            valueName: "duration"))
    public var giveUpAfter: String?

    @Option(
        help: ArgumentHelp(
            "Records decided per poll, at most. Default: $INTENT_MAX_BATCH, else 1000.", valueName: "records"))
    public var maxBatch: Int?

    @Option(
        help: ArgumentHelp(
            "How often finished work is committed while records keep coming (always when idle), e.g. 200ms, 1s. Default: $INTENT_COMMIT_INTERVAL, else 200ms.",
            valueName: "duration"))
    public var commitInterval: String?

    /// The worker's batching: from the flags or the environment.
    public func batchPolicy() throws -> BatchPolicy {
        let environment = ProcessInfo.processInfo.environment
        var policy = BatchPolicy.standard
        if let text = maxBatch.map(String.init) ?? environment["INTENT_MAX_BATCH"] {
            guard let value = Int(text), (1...100_000).contains(value) else {
                throw ValidationError("Invalid batch size \(text): use 1 to 100000 records.")
            }
            policy.maximumBatch = value
        }
        if let text = commitInterval ?? environment["INTENT_COMMIT_INTERVAL"] {
            guard let value = Self.parseDuration(text), value > .zero else {
                throw ValidationError("Invalid commit interval \(text): use milliseconds (200ms) or seconds (1s).")
            }
            policy.commitInterval = value
        }
        return policy
    }

    /// The worker's retry policy: the give-up time from the flag or the environment.
    public func retryPolicy() throws -> RetryPolicy {
        var policy = RetryPolicy.standard
        guard let text = giveUpAfter ?? ProcessInfo.processInfo.environment["INTENT_GIVE_UP_AFTER"] else {
            return policy
        }
        guard let duration = Self.parseDuration(text), duration > .zero else {
            throw ValidationError("Invalid give-up time \(text): use seconds (300, 90s) or minutes (5m).")
        }
        policy.giveUpAfter = duration
        return policy
    }

    /// The stage loop's batching and retry policies from the flags (its runtime's arguments).
    public func applyPolicies<Stage>(to configuration: inout StageConfiguration<Stage>) throws {
        configuration.batching = try batchPolicy()
        configuration.retry = try retryPolicy()
    }

    /// The resolve stage loop's batching and retry policies from the flags.
    public func applyPolicies(to configuration: inout ResolveWorker.Configuration) throws {
        configuration.batching = try batchPolicy()
        configuration.retry = try retryPolicy()
    }

    /// `300` (seconds), `300s`, `200ms` or `5m`.
    static func parseDuration(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let (number, seconds): (Substring, Double) =
            if trimmed.hasSuffix("ms") {
                (trimmed.dropLast(2), 0.001)
            } else {
                switch trimmed.last {
                case "h": (trimmed.dropLast(), 3600)
                case "m": (trimmed.dropLast(), 60)
                case "s": (trimmed.dropLast(), 1)
                default: (Substring(trimmed), 1)
                }
            }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return .milliseconds(Int64((value * seconds * 1000).rounded()))
    }

    public func groupID(worker: String) -> String {
        let variable = "INTENT_\(worker.uppercased())_GROUP"
        return group ?? ProcessInfo.processInfo.environment[variable] ?? "intent-\(worker)"
    }

    /// Checks (or creates) the topics, then runs the worker until SIGTERM or
    /// SIGINT, riding out broker outages for the give-up time (see ``RetryPolicy``).
    public func run(
        _ worker: some Service, needs topics: [String], client: KafkaConfiguration, logger: Logger
    ) async throws {
        let pipeline = topicOptions.topics
        let createTopics = self.createTopics
        let policy = try retryPolicy()
        // Workers started together with (or just after) a broker find it still starting.
        let existing = try await policy.retrying("list topics", logger: logger) {
            try await KafkaAdminClient.with(configuration: client, logger: logger) { admin in
                if createTopics { try await admin.createTopics(pipeline.specifications()) }
                return Set(try await admin.listTopics())
            }
        }
        let missing = topics.filter { !existing.contains($0) }
        if !missing.isEmpty {
            throw ValidationError(
                "Missing topics: \(missing.joined(separator: ", ")). Provision them (intentctl topics provision, or deploy/README.md), or pass --create-topics on a development broker."
            )
        }
        // The endpoints come first in the group, so they stop last: /health answers
        // while the worker finishes after SIGTERM.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        var telemetry = Telemetry.current
        if let port = try operations.port() {
            let metrics = OperationsMetrics.process
            telemetry = Telemetry(
                health: WorkerHealth(stallLimit: policy.giveUpAfter + .seconds(30)), metrics: metrics.factory,
                statisticsInterval: .seconds(5))
            services.append(
                .init(
                    service: OperationsServer(
                        host: operations.host, port: port, health: telemetry.health, metrics: metrics, logger: logger)))
        }
        // The tracer comes first of all, so it stops last and exports the final spans.
        if let tracer = try operations.tracer(serviceName: ProcessInfo.processInfo.processName) {
            telemetry.tracer = tracer
            services.insert(.init(service: tracer), at: 0)
        }
        services.append(.init(service: worker))
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await Telemetry.$current.withValue(telemetry) {
            try await serviceGroup.run()
        }
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
        if let path = file ?? environment[fileVariable] { return try contents(ofFile: path) }
        return environment[variable]
    }

    /// A secret file's contents; refused when others could read it (``KeyFilePermissions``).
    /// `purpose` names what it is for in the error.
    public static func contents(ofFile path: String, for purpose: String? = nil) throws -> String {
        try KeyFilePermissions.check(path)
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError(
                "Cannot read \(path)\(purpose.map { " (for \($0))" } ?? ""): \(error.localizedDescription)")
        }
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
        // A voice service never speaks as a stage: /workers/ and /operators/ sources are the pipeline's own.
        return try keyring(
            parseKeys(text, origin: "source keys"), allowing: { !PipelineSource.isInternal($0) },
            refusal: {
                "The voice services' keys list \($0), a source reserved for the pipeline's stages (their keys go in --stage-keys)."
            })
    }

    /// The app state's keys: view keys alone (``ViewKey``: `/views/SOURCE [KEYID] HEXKEY`
    /// lines, one per writer it shows; a file, a directory of files or the environment), as the keyring that checks view signatures. A key
    /// any other reader trusts (a stage's, the ledger operator's, a voice or contacts
    /// service's) stops the program: the web-facing service must hold none (SECURITY.md).
    public static func viewKeys(file: String?) throws -> EventAuthenticator {
        guard
            let keys = try keyFiles(
                "view keys", path: file, fileVariable: "INTENT_VIEW_KEYS_FILE", variable: "INTENT_VIEW_KEYS")
        else {
            throw ValidationError(
                "No view keys: pass --view-keys PATH, or set INTENT_VIEW_KEYS_FILE or INTENT_VIEW_KEYS (lines \"\(ViewKey.prefix)/workers/payments [KEYID] HEXKEY\", one per writer shown: intentctl keys generate prints them)."
            )
        }
        if let foreign = keys.first(where: { ViewKey.viewedSource(of: $0.source).map(ViewKey.isShown) != true }) {
            throw ValidationError(
                "The view keys list \(foreign.source), which is not a view key of a stage, the ledger operator or a contacts service (\(ViewKey.prefix)/workers/..., \(ViewKey.prefix)/operators/..., \(ViewKey.prefix)/contacts/...): the app state must not hold a key that other readers trust."
            )
        }
        return EventAuthenticator(keys: keys).viewing
    }

    /// Key lines (``EventAuthenticator/parseKeys(_:origin:)``); a malformed one stops the
    /// program with a configuration error naming `origin` and the line.
    static func parseKeys(_ text: String, origin: String) throws -> [SigningKey] {
        do {
            return try EventAuthenticator.parseKeys(text, origin: origin)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The keys as a keyring, if every key's source is one this file may hold; else the
    /// first other source stops the program, `refusal` saying why.
    static func keyring(
        _ keys: [SigningKey], allowing allowed: (String) -> Bool, refusal: (String) -> String
    ) throws -> EventAuthenticator {
        // A view key belongs where its writer's key does (ViewKey).
        if let foreign = keys.first(where: { !allowed(ViewKey.viewedSource(of: $0.source) ?? $0.source) }) {
            throw ValidationError(refusal(foreign.source))
        }
        return EventAuthenticator(keys: keys)
    }
}
