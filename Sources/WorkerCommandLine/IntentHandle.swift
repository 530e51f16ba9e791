public import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
public import IntentWorkers
import Messaging
import PipelineTopics

/// The handle worker's command line; the work is in `HandleWorker`.
public struct IntentHandle: WorkerCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "intent-handle",
        abstract: "Handle confirmed messaging intents: send, search, mark.",
        discussion: """
            Consumes intent.confirmed.v1 from <prefix>intents.confirmed; writes the history to \
            <prefix>messages.history and each intent's response to <prefix>intents.responses. A send through a \
            slow service (--slow-service NAME=SECONDS) answers inProgress at once and completes when delivered.

            Environment: KAFKA_BOOTSTRAP_SERVERS and KAFKA_*, INTENT_TOPIC_PREFIX, INTENT_HANDLE_GROUP, \
            INTENT_SLOW_SERVICES (NAME=SECONDS,…), LOG_LEVEL, LOG_FORMAT (text or json: one JSON object per line).
            """,
        version: PipelineVersion.current)

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var worker: WorkerOptions
    @OptionGroup var stageKeys: StageKeyOptions

    @Option(
        name: .customLong("slow-service"),
        help: ArgumentHelp(
            "A messaging service that takes a while, as NAME=SECONDS. Repeatable.", valueName: "NAME=SECONDS"))
    var slowServices: [String] = []

    public func run(hooks: any StageHostHooks) async throws {
        let logger = try logging.makeLogger(label: "intent-handle")
        let client = try kafka.configuration(clientID: "intent-handle")
        let topics = worker.topicOptions.topics
        var entries = slowServices
        if entries.isEmpty, let fromEnvironment = ProcessInfo.processInfo.environment["INTENT_SLOW_SERVICES"] {
            entries = fromEnvironment.split(separator: ",").map(String.init)
        }
        var slow: [String: Duration] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=")
            guard parts.count == 2, let seconds = Int(parts[1]), seconds >= 0 else {
                throw ValidationError("Bad slow service \"\(entry)\": expected NAME=SECONDS.")
            }
            slow[String(parts[0])] = .seconds(seconds)
        }
        let keys = try stageKeys.keys(signingAs: PipelineSource.handle)
        var configuration = HandleWorker.Configuration(
            kafka: client, topics: topics, groupID: worker.groupID(worker: "handle"),
            stage: HandleStage(authenticator: keys, slowServices: slow), keys: keys)
        let observation = try worker.observation(logger: logger)
        try worker.applyPolicies(to: &configuration, observedBy: observation)
        let handle = HandleWorker(configuration: configuration, logger: logger, hooks: hooks)
        try await worker.run(
            handle, observedBy: observation,
            needs: KafkaAccess(.handle, topics: topics).topics, client: client,
            logger: logger)
    }
}
