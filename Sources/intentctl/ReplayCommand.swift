import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import IntentWorkers
import Kafka
import PipelineTopics

/// Re-derives past decisions with this build's logic.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-run past decisions through this build's logic and show what would change.",
        subcommands: [ResolveReplayCommand.self])
}

struct ResolveReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Re-resolve the recorded intent requests of a period with the current resolver.",
        discussion: """
            Reads <prefix>intents.requested of the period (--from/--to; all of it without them), the resolve \
            stage's decisions on <prefix>intents.prompts and <prefix>intents.resolved, and the whole history of \
            <prefix>contacts. Each request is resolved again against the user's contact book exactly as it was \
            when it was decided (each decision records its book's version, contactsVersion). Prints what would \
            change, per intent and parameter: before and after. Exits 0 when nothing changes, 1 otherwise. \
            Decisions from resolvers that did not record a version, and books no longer in the contacts topic \
            (compacted away), are counted, not compared. Give the resolver the resolve worker's configuration \
            (--currencies, --messaging-services or their environment variables), or its decisions on those differ. Progress goes to standard error when it is a terminal.
            """)

    @OptionGroup var period: TimeWindowOptions
    /// As the resolve worker is configured (the same flags and environment).
    @OptionGroup var resolverOptions: ResolverOptions
    @Flag(help: "Print the report as one JSON object.") var json = false
    @OptionGroup var topicOptions: TopicOptions
    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let configuration = try kafka.configuration(clientID: "intentctl-replay")
        let logger = try logging.makeLogger(label: "intentctl.replay")
        let topics = topicOptions.topics
        let window = try period.window()
        let progress = ReplayProgress.onTerminal(
            total: try await ReplayProgress.recordCount(
                of: [topics.contacts, topics.prompts, topics.resolved, topics.requested], configuration: configuration,
                logger: logger))
        let report = try await ResolveReplay.run(
            topics: topics, configuration: configuration, logger: logger, from: window?.from, to: window?.to,
            resolver: try resolverOptions.resolver(), progress: progress)
        progress?.finish()
        if json {
            output(String(decoding: CanonicalJSON.encode(report), as: UTF8.self))
        } else {
            for change in report.changes {
                for parameter in Set(change.before.keys).union(change.after.keys).sorted() {
                    output(
                        "\(change.intentID) (\(change.userID), turn \(change.turn)) \(parameter): \(change.before[parameter] ?? "-") → \(change.after[parameter] ?? "-")"
                    )
                }
            }
            output(
                "\(report.replayed) decisions re-derived, \(report.changes.count) would change; \(report.undecided) requests undecided, \(report.unversioned) decisions without a contact-book version, \(report.bookUnavailable) books no longer available"
            )
        }
        if !report.changes.isEmpty { throw ExitCode(1) }
    }
}
