import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import Payments
import PipelineAudit
import PipelineTools
import PipelineTopics

/// Replays the pipeline's topics and checks every intent's lifecycle.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Replay the topics and check every intent's lifecycle and the ledger's invariants.",
        discussion: """
            Reads <prefix>intents.responses, <prefix>payments.ledger, <prefix>intents.confirmations, \
            <prefix>intents.resolved and <prefix>messages.history from the beginning (no consumer group) and \
            checks: one final response \
            per intent; one hold and one post or void per transfer; every balance equals the sum of its \
            entries and no user balance is negative; money is neither created nor lost; every posted transfer \
            has its payer's confirmation (and, with the binding key, a matching binding) and a proposal that \
            is one of its intent's resolutions by the resolve stage (the payee's account and the amount; with \
            the stage keys, only resolutions the resolve stage signed count); a payment request \
            is paid by at most one posted transfer, for what it asks from its payer to its requester, never \
            once declined, and shown paid (requestPaid) only with a posted payment of it by its payer; every message was sent once. With the stages' keys (--stage-keys or the environment), it also checks that the records \
            are the ones the pipeline wrote: every stage record's signature, and every stage's hash chain on \
            every partition of the responses, ledger and confirmations (integrity.findings: forged, modified, \
            deleted, reordered, replayed, unchained; forks from two writers are counted, not findings). \
            With --from TIME [--to TIME], audits a period: responses, messages and requests are read from \
            the offsets at --from (the broker's time index, checked, with a scan where it is wrong: \
            window.located), the ledger and the confirmations from their start (balances are sums of all \
            earlier entries), each partition up to its first record dated after --to, stepping over records \
            dated in the future (so one cannot end a period's read and hide what follows it); intents whose \
            first turn came before the period are listed (window.intentsBeganBefore). A record of the audited \
            topics (responses, ledger, confirmations, resolved intents, messages, dead letters) dated more than \
            five minutes after its topic's read began is a finding, period or not. Progress (records, rate, time left) goes to standard error \
            when it is a terminal. Prints a summary for a person when standard output is a terminal, and \
            the JSON report with --json or into a pipe or file. The report's fields: intents (with at least \
            one response), pendingIntents (only inProgress so far), postedTransfers, voidedTransfers, \
            heldTransfers, creditsInTransit, messagesDelivered, deadLetters (by dlq-reason: records a stage \
            refused and parked; not findings), findings (every broken rule, one sentence each), \
            bindingKeyCheck (notChecked, verified, mismatches, wrongKey), integrity (with the stage keys: \
            verified and unverifiable records, chains, forks, findings) and window (with --from). Exits 1 when any rule is broken, 2 when the binding key given \
            matches none of two or more bindings (the wrong key, not tampering: bindingKeyCheck "wrongKey"). Intents still in progress are \
            listed, and posted payments whose credit is on its way to the payee's partition are counted \
            (creditsInTransit), not as broken, until they have been on their way longer than \
            --credit-transit-limit (an hour by default; measured to --to, or to when the audit began): then \
            the money waits in clearing and each is a finding. A credit the payee's member dead-lettered is a \
            finding.
            """)

    /// Given, bindings are checked too.
    @OptionGroup var bindingKey: BindingKeyOptions
    /// Given, every record's signature and every stage's chain are checked too.
    @OptionGroup var stageKeys: StageKeyOptions
    @Option(
        help: ArgumentHelp(
            "Minutes a posted payment's credit may be on its way to the payee's member before it is a finding (0: no limit).",
            valueName: "minutes"))
    var creditTransitLimit: Int = Int(CreditDeadline.defaultLimit.components.seconds / 60)
    @Flag(help: "Print the JSON report even on a terminal (it is printed into a pipe or file anyway).")
    var json = false
    /// Given, only that period is audited (see the discussion).
    @OptionGroup var period: TimeWindowOptions
    @OptionGroup var topicOptions: TopicOptions
    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    /// A year of minutes: any longer is no limit, and a larger value's seconds would overflow.
    static let maximumCreditTransitLimit = 366 * 24 * 60

    func validate() throws {
        guard (0...Self.maximumCreditTransitLimit).contains(creditTransitLimit) else {
            throw ValidationError(
                "--credit-transit-limit is minutes, 0 (no limit) to \(Self.maximumCreditTransitLimit) (a year); got \(creditTransitLimit)"
            )
        }
    }

    func run() async throws {
        let configuration = try kafka.configuration(clientID: "intentctl-audit")
        let logger = try logging.makeLogger(label: "intentctl.audit")
        let topics = topicOptions.topics
        let key = bindingKey.isConfigured ? BindingKey(try bindingKey.key()) : nil
        let keys = stageKeys.isConfigured ? try stageKeys.keys() : nil
        let window = try period.window().map { TopicAudit.Window(from: $0.from, to: $0.to) }
        let progress = try await ReplayProgress.onTerminal(
            reading: [
                topics.responses, topics.ledger, topics.confirmations, topics.resolved, topics.messages,
                topics.deadLetter,
            ],
            configuration: configuration, logger: logger)
        var report = try await TopicAudit.run(
            topics: topics, configuration: configuration, logger: logger, keys: keys, bindingKey: key, window: window,
            progress: progress, creditTransitLimit: creditTransitLimit > 0 ? .seconds(60 * creditTransitLimit) : nil)
        progress?.finish()
        report.postedIntents = []
        report.deliveredMessages = [:]
        if json || isatty(STDOUT_FILENO) == 0 {
            output(String(decoding: CanonicalJSON.encode(report), as: UTF8.self))
        } else {
            for line in AuditSummary.lines(of: report, topicPrefix: topics.prefix) { output(line) }
        }
        if report.bindingKeyCheck == .wrongKey { throw ExitCode(2) }
        if !report.findings.isEmpty { throw ExitCode(1) }
    }
}
