import ArgumentParser
import CommandLineSupport
import Confirmation
import Foundation
import IntentCrypto
import IntentEvents
import Kafka
import Logging
import Payments
import PipelineTools
import PipelineTopics

/// Re-derives past decisions with this build's logic.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-run past decisions through this build's logic and show what would change.",
        subcommands: [ResolveReplayCommand.self, ConfirmReplayCommand.self])
}

/// What both replays share: the period, the cluster and topics, progress on a
/// terminal, and the report (JSON with `--json`, else one line per change and a
/// summary); exit 1 when anything would change.
struct ReplayOptions: ParsableArguments {
    @OptionGroup var period: TimeWindowOptions
    @Flag(help: "Print the report as one JSON object.") var json = false
    @OptionGroup var topicOptions: TopicOptions
    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    struct Context {
        var configuration: KafkaConfiguration
        var logger: Logger
        var topics: PipelineTopics
        var from: Date?
        var to: Date?
        var progress: ReplayProgress?
    }

    /// Runs `replay`, whose report lists `changes`, with progress over the `reading` topics.
    func run<Report: Encodable>(
        reading: (PipelineTopics) -> [String], _ replay: (Context) async throws -> Report,
        lines: (Report) -> [String], changes: (Report) -> Int
    ) async throws {
        let configuration = try kafka.configuration(clientID: "intentctl-replay")
        let logger = try logging.makeLogger(label: "intentctl.replay")
        let topics = topicOptions.topics
        let window = try period.window()
        let progress = try await ReplayProgress.onTerminal(
            reading: reading(topics), configuration: configuration, logger: logger)
        let report = try await replay(
            Context(
                configuration: configuration, logger: logger, topics: topics, from: window?.from, to: window?.to,
                progress: progress))
        progress?.finish()
        if json {
            output(String(decoding: CanonicalJSON.encode(report), as: UTF8.self))
        } else {
            for line in lines(report) { output(line) }
        }
        if changes(report) > 0 { throw ExitCode(1) }
    }
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

    @OptionGroup var amounts: AmountOptions
    @OptionGroup var stageKeys: StageKeyOptions
    @OptionGroup var replay: ReplayOptions

    func run() async throws {
        // Bindings are not compared (they are keyed); any key makes the stage decide.
        let stage = ConfirmStage(
            bindingKey: BindingKey(SecureRandom.bytes(32)), authenticator: try stageKeys.keys(),
            amounts: try amounts.policy())
        try await replay.run(
            reading: { [$0.confirmations, $0.responses, $0.resolved, $0.accounts, $0.ledger] },
            { context in
                try await ConfirmReplay.run(
                    topics: context.topics, configuration: context.configuration, logger: context.logger,
                    from: context.from, to: context.to, stage: stage, progress: context.progress)
            },
            lines: { report in
                report.changes.map { "\($0.intentID) (\($0.userID)): \($0.before) → \($0.after)" } + [
                    "\(report.replayed) payment decisions re-derived, \(report.changes.count) would change; \(report.undecided) undecided, \(report.unversioned) without a ledger version, \(report.ledgerUnavailable) whose ledger version is no longer reached"
                ]
            }, changes: { $0.changes.count })
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
            (compacted away), are counted, not compared. Each decision also records the resolver configuration \
            it was made under (resolverConfiguration: currencies and limits, messaging services); only decisions \
            made under the configuration given here (--currencies, --messaging-services or their environment \
            variables, as the resolve worker takes them) are compared, the others counted. Progress goes to \
            standard error when it is a terminal.
            """)

    /// As the resolve worker is configured (the same flags and environment).
    @OptionGroup var resolverOptions: ResolverOptions
    @OptionGroup var replay: ReplayOptions

    func run() async throws {
        let resolver = try resolverOptions.resolver()
        try await replay.run(
            reading: { [$0.contacts, $0.prompts, $0.resolved, $0.requested] },
            { context in
                try await ResolveReplay.run(
                    topics: context.topics, configuration: context.configuration, logger: context.logger,
                    from: context.from, to: context.to, resolver: resolver, progress: context.progress)
            },
            lines: { report in
                report.changes.flatMap { change in
                    Set(change.before.keys).union(change.after.keys).sorted().map { parameter in
                        "\(change.intentID) (\(change.userID), turn \(change.turn)) \(parameter): \(change.before[parameter] ?? "-") → \(change.after[parameter] ?? "-")"
                    }
                } + [
                    "\(report.replayed) decisions re-derived, \(report.changes.count) would change; \(report.undecided) requests undecided, \(report.unversioned) decisions without a contact-book version, \(report.bookUnavailable) books no longer available, \(report.otherConfiguration) decided under another resolver configuration"
                ]
            }, changes: { $0.changes.count })
    }
}
