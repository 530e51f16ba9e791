import ArgumentParser
import CommandLineSupport
import Foundation
import IntentResolution
import IntentWorkers
import Kafka
import Logging
import ServiceLifecycle

/// The resolve worker's command line: configuration only; the work is in
/// `ResolveWorker` (IntentWorkers).
@main
struct IntentResolve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

            Environment: KAFKA_BOOTSTRAP_SERVERS and KAFKA_* (librdkafka properties), INTENT_TOPIC_PREFIX, \
            INTENT_RESOLVE_GROUP, INTENT_CURRENCIES, INTENT_MESSAGING_SERVICES, LOG_LEVEL.
            """)

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    @OptionGroup var topicOptions: TopicOptions

    @Option(
        help:
            "Consumer group; every instance of this worker uses the same. Default: $INTENT_RESOLVE_GROUP, else intent-resolve."
    )
    var group: String?

    @Option(
        help: ArgumentHelp(
            "Supported currencies and limits as CODE:MIN:MAX,… Default: $INTENT_CURRENCIES, else CNY:0.01:50000,EUR:0.01:10000,GBP:0.01:10000,RUB:1:500000,USD:0.01:10000.",
            valueName: "list"))
    var currencies: String?

    @Option(
        help: ArgumentHelp(
            "Messaging services users may name, comma-separated. Default: $INTENT_MESSAGING_SERVICES, else sms,chat.",
            valueName: "list"))
    var messagingServices: String?

    @Flag(
        help: "Create the pipeline's topics if they do not exist (for development; production topics are provisioned).")
    var createTopics = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let logger = try logging.makeLogger(label: "intent-resolve")
        let client = try kafka.configuration(clientID: "intent-resolve")
        let topics = topicOptions.topics
        let amounts: AmountPolicy
        do {
            amounts = try (currencies ?? environment["INTENT_CURRENCIES"]).map(AmountPolicy.parse) ?? .default
        } catch {
            throw ValidationError("\(error)")
        }
        let services = (messagingServices ?? environment["INTENT_MESSAGING_SERVICES"]).map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        try await KafkaAdminClient.with(configuration: client, logger: logger) { admin in
            if createTopics {
                try await admin.createTopics(topics.specifications())
            }
            let existing = Set(try await admin.listTopics())
            let missing = [topics.requested, topics.prompts, topics.resolved, topics.contacts, topics.deadLetter]
                .filter { !existing.contains($0) }
            if !missing.isEmpty {
                throw ValidationError(
                    "Missing topics: \(missing.joined(separator: ", ")). Provision them (see deploy/README.md), or pass --create-topics on a development broker."
                )
            }
        }
        let worker = ResolveWorker(
            configuration: ResolveWorker.Configuration(
                kafka: client, topics: topics,
                groupID: group ?? environment["INTENT_RESOLVE_GROUP"] ?? "intent-resolve",
                resolver: IntentResolver(amounts: amounts, messagingServices: services ?? ["sms", "chat"])),
            logger: logger)
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: worker)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await serviceGroup.run()
    }
}
