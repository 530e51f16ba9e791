public import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
public import IntentWorkers
import Payments
import PipelineTopics

/// The payments worker's command line; the work is in `PaymentsWorker`.
public struct IntentPayments: WorkerCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "intent-payments",
        abstract: "Move money, only with the user's explicit, matching confirmation, and never twice.",
        discussion: """
            Consumes <prefix>intents.confirmations: confirmed payments from intent-confirm, which has asked the \
            user (payment.confirmation.requested.v1 on <prefix>intents.prompts; here the amount is reserved), and the users' \
            answers (payment.confirmation.v1, signed by the voice service). Before holding the amount it checks \
            again what intent-confirm checked: the amount rules (--currencies, as intent-confirm's), the payer's \
            account and its verification, the payee's account. Money moves only when the answer \
            echoes the binding of exactly that proposal before it expires; otherwise the hold is released. \
            Writes every decision to <prefix>payments.ledger first, and the outcome to <prefix>intents.responses.

            State: each instance holds the ledger of the users of the input partitions it is assigned \
            (<prefix>payments.ledger is co-partitioned with the input), restored from the latest snapshot in \
            <prefix>payments.snapshots plus the ledger records after it; payees' accounts come from \
            <prefix>payments.accounts. A payee's credit goes to the payee's partition of the input as an effect.

            Secrets, from files or the environment: the binding key (INTENT_BINDING_KEY_FILE or \
            INTENT_BINDING_KEY, at least 32 bytes as hex) and the voice services' keys \
            (INTENT_SOURCE_KEYS_FILE or INTENT_SOURCE_KEYS, lines "SOURCE HEXKEY"), and the stage keys \
            (INTENT_STAGE_KEYS_FILE or INTENT_STAGE_KEYS): proposals must be signed by /workers/confirm, \
            ledger events by their writers, and what this worker publishes is signed as /workers/payments. \
            A decline of a payment request (payment.request.decline.v1) counts only from a voice service the \
            payer is bound to in <prefix>users.settings (records signed by a settings service, whose keys are \
            among the source keys); see --voice-binding for users bound to none.
            Environment: KAFKA_BOOTSTRAP_SERVERS and KAFKA_*, INTENT_TOPIC_PREFIX, INTENT_PAYMENTS_GROUP, INTENT_IDEMPOTENCY_HORIZON, INTENT_SNAPSHOT_INTERVAL, INTENT_VOICE_BINDING, INTENT_CURRENCIES, LOG_LEVEL, LOG_FORMAT (text or json: one JSON object per line).
            """,
        version: PipelineVersion.current)

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var worker: WorkerOptions
    @OptionGroup var bindingKey: BindingKeyOptions
    @OptionGroup var sourceKeys: SourceKeyOptions
    @OptionGroup var stageKeys: StageKeyOptions
    @OptionGroup var state: LedgerStateOptions
    @OptionGroup var voiceBindingOptions: VoiceBindingOptions
    /// The confirm worker's rules, checked again before any money is held.
    @OptionGroup var amounts: AmountOptions

    public func run(hooks: any StageHostHooks) async throws {
        let logger = try logging.makeLogger(label: "intent-payments")
        let client = try kafka.configuration(clientID: "intent-payments")
        let topics = worker.topicOptions.topics
        let keys = try stageKeys.keys(signingAs: PipelineSource.payments)
        let sources = try sourceKeys.authenticator()
        let stage = PaymentsStage(
            bindingKey: BindingKey(try bindingKey.key()), authenticator: sources, stages: keys,
            amounts: try amounts.policy())
        var configuration = PaymentsWorker.Configuration(
            kafka: client, topics: topics, groupID: worker.groupID(worker: "payments"), stage: stage, keys: keys)
        // Declines of payment requests only from a voice service the payer is bound to (the
        // settings services' keys are among the source keys, as for intent-resolve).
        configuration.voiceServices = VoiceServiceSettings(binding: try voiceBindingOptions.binding(), keys: sources)
        try state.apply(to: &configuration)
        let observation = try worker.observation(logger: logger)
        try worker.applyPolicies(to: &configuration, observedBy: observation)
        let payments = PaymentsWorker(configuration: configuration, logger: logger, hooks: hooks)
        try await worker.run(
            payments, observedBy: observation,
            needs: KafkaAccess(.payments, topics: topics).topics,
            client: client, logger: logger)
    }
}
