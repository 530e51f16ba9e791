import ArgumentParser
import CommandLineSupport
import Confirmation
import Foundation
import IntentCrypto
import IntentEvents
import IntentWorkers
import Kafka
import Payments
import PipelineTopics

/// Re-derives past decisions with this build's logic.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-run past decisions through this build's logic and show what would change.",
        subcommands: [ResolveReplayCommand.self, ConfirmReplayCommand.self])
}

struct ConfirmReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Re-confirm the recorded payments of a period with the current confirm stage.",
        discussion: """
            Reads <prefix>intents.resolved of the period (--from/--to; all of it without them) and the confirm \
            stage's decisions on <prefix>intents.confirmations and <prefix>intents.responses, then each ledger \
            partition of <prefix>payments.ledger in order and the accounts of <prefix>payments.accounts. Each \
            payment is confirmed again on its payer's ledger exactly as the decision saw it (each decision \
            records the payer's ledger version, ledgerVersion), with this build's rules and the limits given \
            (--currencies or $INTENT_CURRENCIES, as the confirm worker takes them). Prints what would change \
            (before → after, as code and reason) and exits 1 when anything does. The accounts are taken as they \
            are now. Needs the stages' keys (the resolve stage's signature on each resolved intent is checked \
            as the worker checks it).
            """)

    @OptionGroup var period: TimeWindowOptions
    @OptionGroup var amounts: AmountOptions
    @OptionGroup var stageKeys: StageKeyOptions
    @Flag(help: "Print the report as one JSON object.") var json = false
    @OptionGroup var topicOptions: TopicOptions
    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let configuration = try kafka.configuration(clientID: "intentctl-replay")
        let logger = try logging.makeLogger(label: "intentctl.replay")
        let topics = topicOptions.topics
        let window = try period.window()
        // Bindings are not compared (they are keyed); any key makes the stage decide.
        let stage = ConfirmStage(
            bindingKey: BindingKey(SecureRandom.bytes(32)), authenticator: try stageKeys.keys(),
            amounts: try amounts.policy())
        let progress = ReplayProgress.onTerminal(
            total: try await ReplayProgress.recordCount(
                of: [topics.confirmations, topics.responses, topics.resolved, topics.accounts, topics.ledger],
                configuration: configuration, logger: logger))
        let report = try await ConfirmReplay.run(
            topics: topics, configuration: configuration, logger: logger, from: window?.from, to: window?.to,
            stage: stage, progress: progress)
        progress?.finish()
        if json {
            output(String(decoding: CanonicalJSON.encode(report), as: UTF8.self))
        } else {
            for change in report.changes {
                output("\(change.intentID) (\(change.userID)): \(change.before) → \(change.after)")
            }
            output(
                "\(report.replayed) payment decisions re-derived, \(report.changes.count) would change; \(report.undecided) undecided, \(report.unversioned) without a ledger version, \(report.ledgerUnavailable) whose ledger version is no longer reached"
            )
        }
        if !report.changes.isEmpty { throw ExitCode(1) }
    }
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
