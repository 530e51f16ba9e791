public import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import IntentResolution
public import IntentWorkers
import Kafka
import Logging
import PipelineTopics
import ServiceLifecycle

/// The resolve worker's command line: configuration only; the work is in
/// `ResolveWorker` (IntentWorkers).
public struct IntentResolve: WorkerCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "intent-resolve",
        abstract: "Resolve intents: match people, check amounts, ask the user when needed.",
        discussion: """
            Consumes intent.requested.v1 from <prefix>intents.requested and publishes intent.prompt.v1 to \
            <prefix>intents.prompts when the user has to answer, or intent.resolved.v1 to \
            <prefix>intents.resolved when every parameter resolved. Contacts come from the compacted topic \
            <prefix>contacts, read in full at start. Records that cannot be read go to \
            <prefix>intents.deadletter with the reason in headers (dlq-reason).

            Run more instances with the same --group to scale. SIGTERM or SIGINT finishes the batch in \
            flight, commits, and exits.

            Requests must be signed by their voice service (header intent-signature: HMAC-SHA256 hex of the \
            canonical envelope with the source's key); keys come from INTENT_SOURCE_KEYS_FILE or \
            INTENT_SOURCE_KEYS (lines "SOURCE HEXKEY"). Unsigned or badly signed requests are dead-lettered \
            as unauthenticated. Requests dated more than --max-event-age seconds ago or --max-clock-skew \
            seconds ahead are dead-lettered as stale. What this worker publishes is signed with the key of \
            /workers/resolve from the stage keys (INTENT_STAGE_KEYS_FILE or INTENT_STAGE_KEYS).

            Environment: KAFKA_BOOTSTRAP_SERVERS and KAFKA_* (librdkafka properties), INTENT_TOPIC_PREFIX, \
            INTENT_RESOLVE_GROUP, INTENT_CURRENCIES, INTENT_MESSAGING_SERVICES, LOG_LEVEL, LOG_FORMAT (text or json: one JSON object per line).
            """,
        version: PipelineVersion.current)

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    @OptionGroup var worker: WorkerOptions
    @OptionGroup var resolverOptions: ResolverOptions
    @OptionGroup var sourceKeys: SourceKeyOptions
    @OptionGroup var stageKeys: StageKeyOptions
    @OptionGroup var freshness: FreshnessOptions
    @OptionGroup var voiceBindingOptions: VoiceBindingOptions

    @Flag(help: "Accept unsigned intent requests. For development only: anyone who can publish could act as any user.")
    var allowUnsigned = false

    public func run(hooks: any StageHostHooks) async throws {
        let logger = try logging.makeLogger(label: "intent-resolve")
        let client = try kafka.configuration(clientID: "intent-resolve")
        let topics = worker.topicOptions.topics
        if allowUnsigned { logger.warning("accepting unsigned intent requests (--allow-unsigned)") }
        let voiceBinding = try voiceBindingOptions.binding()
        if voiceBinding == .optional {
            logger.warning("any voice service may speak for users bound to none (--voice-binding optional)")
        }
        var configuration = ResolveWorker.Configuration(
            kafka: client, topics: topics, groupID: worker.groupID(worker: "resolve"),
            resolver: try resolverOptions.resolver(),
            authenticator: allowUnsigned ? nil : try sourceKeys.authenticator(),
            keys: try stageKeys.keys(signingAs: PipelineSource.resolve), freshness: try freshness.window(),
            voiceBinding: voiceBinding)
        let observation = try worker.observation(logger: logger)
        try worker.applyPolicies(to: &configuration, observedBy: observation)
        let resolve = ResolveWorker(configuration: configuration, logger: logger, hooks: hooks)
        try await worker.run(
            resolve, observedBy: observation,
            needs: KafkaAccess(.resolve, topics: topics).topics,
            client: client, logger: logger)
    }
}
