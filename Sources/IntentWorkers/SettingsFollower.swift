import CoreMetrics
import IntentEvents
import IntentResolution
import Kafka
import Logging

extension TopicFollower {
    /// Follows the users' settings topic (co-partitioned with the input) into `settings`:
    /// the one reading of it the resolve worker (language, voice services of a request) and
    /// the payments worker (voice services of a decline) share, so both apply a record by the
    /// same rules and report one older than what they hold the same way.
    /// - Parameters:
    ///   - authenticator: The settings services' keys; nil takes unsigned records (development only).
    ///   - reject: Parks a record that cannot be read. The payments worker passes one that
    ///     parks nothing: the resolve worker dead-letters what both refuse, once.
    static func settings(
        configuration: KafkaConfiguration, topic: String, authenticator: EventAuthenticator?,
        into settings: PartitionedState<UserSettingsDirectory>, metrics: any MetricsFactory, logger: Logger,
        retry: RetryPolicy,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let record = try UserSettingsRecord.decode(message, authenticator: authenticator)
                settings.withValue(in: message.partition) { $0.apply(record) }.report(
                    message, metrics: metrics, logger: logger)
            }, reject: reject, forget: settings.forget, retry: retry)
    }
}
