public import ArgumentParser
public import CommandLineSupport
import Foundation
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
            guard let value = DurationText.parse(text), value > .zero else {
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
        guard let duration = DurationText.parse(text), duration > .zero else {
            throw ValidationError("Invalid give-up time \(text): use seconds (300, 90s) or minutes (5m).")
        }
        policy.giveUpAfter = duration
        return policy
    }

    /// The stage loop's batching and retry policies from the flags (its runtime's arguments),
    /// and where it reports (`observation`'s telemetry).
    public func applyPolicies<Stage>(
        to configuration: inout StageConfiguration<Stage>, observedBy observation: WorkerObservation
    ) throws {
        configuration.batching = try batchPolicy()
        configuration.retry = try retryPolicy()
        configuration.telemetry = observation.telemetry
    }

    /// The resolve stage loop's batching and retry policies from the flags, and where it reports.
    public func applyPolicies(
        to configuration: inout ResolveWorker.Configuration, observedBy observation: WorkerObservation
    ) throws {
        configuration.batching = try batchPolicy()
        configuration.retry = try retryPolicy()
        configuration.telemetry = observation.telemetry
    }

    public func groupID(worker: String) -> String {
        let variable = "INTENT_\(worker.uppercased())_GROUP"
        return group ?? ProcessInfo.processInfo.environment[variable] ?? "intent-\(worker)"
    }

    /// What the worker reports to, from the operations flags: built before the worker,
    /// whose configuration takes ``WorkerObservation/telemetry``, and served around it by
    /// ``run(_:observedBy:needs:client:logger:)``.
    public func observation(logger: Logger) throws -> WorkerObservation {
        var observation = WorkerObservation()
        if let port = try operations.port() {
            let metrics = OperationsMetrics.process
            observation.telemetry = Telemetry(
                health: WorkerHealth(stallLimit: try retryPolicy().giveUpAfter + .seconds(30)),
                metrics: metrics.factory, statisticsInterval: .seconds(5))
            observation.endpoint = OperationsServer(
                host: operations.host, port: port, health: observation.telemetry.health, metrics: metrics,
                logger: logger)
        }
        if let tracer = try operations.tracer(serviceName: ProcessInfo.processInfo.processName) {
            observation.telemetry.tracer = tracer
            observation.tracer = tracer
        }
        return observation
    }

    /// Checks (or creates) the topics, then runs the worker until SIGTERM or
    /// SIGINT, riding out broker outages for the give-up time (see ``RetryPolicy``),
    /// with the operations endpoint and span exporter of `observation` around it.
    public func run(
        _ worker: some Service, observedBy observation: WorkerObservation, needs topics: [String],
        client: KafkaConfiguration, logger: Logger
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
        // The tracer comes first of all, so it stops last and exports the final spans.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let tracer = observation.tracer { services.append(.init(service: tracer)) }
        if let endpoint = observation.endpoint { services.append(.init(service: endpoint)) }
        services.append(.init(service: worker))
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await serviceGroup.run()
    }
}
