public import ArgumentParser
import CommandLineSupport
import Confirmation
import Foundation
import IntentEvents
public import IntentWorkers
import Payments
import PipelineTopics

/// The confirm worker's command line; the work is in `ConfirmWorker`.
public struct IntentConfirm: WorkerCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "intent-confirm",
        abstract: "Confirm resolved intents: final checks and the proposed response.",
        discussion: """
            Consumes intent.resolved.v1 from <prefix>intents.resolved. Messaging intents that can be done go \
            to <prefix>intents.confirmed (the handle worker), payments to <prefix>intents.confirmations (the \
            payments worker); anything that cannot be done ends with its SiriKit response code on \
            <prefix>intents.responses. Reads accounts, balances and payment requests from <prefix>payments.ledger.

            Acts only on resolved intents signed by /workers/resolve; reads the ledger, its snapshots and the \
            accounts by their writers' view signatures (the stage keys hold /views/workers/payments and \
            /views/operators/ledger, never those writers' own keys: the payments worker checks again before \
            money moves); signs what it publishes as /workers/confirm (stage keys: INTENT_STAGE_KEYS_FILE or \
            INTENT_STAGE_KEYS).

            Environment: KAFKA_BOOTSTRAP_SERVERS and KAFKA_*, INTENT_TOPIC_PREFIX, INTENT_CONFIRM_GROUP, \
            INTENT_CURRENCIES, INTENT_UNAVAILABLE_SERVICES, LOG_LEVEL, LOG_FORMAT (text or json: one JSON object per line).
            """,
        version: PipelineVersion.current)

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var worker: WorkerOptions
    @OptionGroup var amounts: AmountOptions
    @OptionGroup var bindingKey: BindingKeyOptions
    @OptionGroup var stageKeys: StageKeyOptions
    @OptionGroup var state: LedgerStateOptions

    @Option(
        help: ArgumentHelp(
            "Messaging services that are down right now, comma-separated. Default: $INTENT_UNAVAILABLE_SERVICES, else none.",
            valueName: "list"))
    var unavailableServices: String?

    @Option(help: "Seconds the user has to confirm a payment, counted from the intent's time (at most 600).")
    var confirmationWindow = 120

    public func run(hooks: any StageHostHooks) async throws {
        let logger = try logging.makeLogger(label: "intent-confirm")
        let client = try kafka.configuration(clientID: "intent-confirm")
        let topics = worker.topicOptions.topics
        let down = Secrets.list(unavailableServices, variable: "INTENT_UNAVAILABLE_SERVICES") ?? []
        guard (1...600).contains(confirmationWindow) else {
            throw ValidationError("--confirmation-window must be 1 to 600 seconds, got \(confirmationWindow)")
        }
        let keys = try stageKeys.keys(signingAs: PipelineSource.confirm)
        for writer in [PipelineSource.payments, PipelineSource.ledgerOperator] where !keys.hasViewKey(for: writer) {
            throw ValidationError(
                "The stage keys have no view key of \(writer) (a line \"\(ViewKey.source(viewing: writer)) KEYID HEXKEY\"): the confirm worker reads the ledger and the accounts by their writers' view signatures."
            )
        }
        let stage = ConfirmStage(
            bindingKey: BindingKey(try bindingKey.key()), authenticator: keys, amounts: try amounts.policy(),
            unavailableServices: Set(down), confirmationWindow: .seconds(confirmationWindow))
        var configuration = ConfirmWorker.Configuration(
            kafka: client, topics: topics, groupID: worker.groupID(worker: "confirm"), stage: stage, keys: keys)
        try state.apply(to: &configuration)
        let observation = try worker.observation(logger: logger)
        try worker.applyPolicies(to: &configuration, observedBy: observation)
        let confirm = ConfirmWorker(configuration: configuration, logger: logger, hooks: hooks)
        try await worker.run(
            confirm, observedBy: observation,
            needs: KafkaAccess(.confirm, topics: topics).topics,
            client: client, logger: logger)
    }
}
