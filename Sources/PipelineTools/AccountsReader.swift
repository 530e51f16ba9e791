public import IntentEvents
public import Kafka
public import Logging
public import Payments
import PipelineTopics

/// The accounts directory as every worker holds it now: the accounts topic read whole,
/// in its one order, taking only what the ledger operator signed (``AccountRecord``),
/// under the directory's rules. What `intentctl ledger` decides on and what a confirm
/// replay decides with.
public enum AccountsReader {
    public static func directory(
        topic: String, configuration: KafkaConfiguration, logger: Logger, keys: EventAuthenticator,
        progress: ReplayProgress? = nil
    ) async throws -> AccountDirectory {
        var directory = AccountDirectory()
        try await TopicReader.forEachRecord(
            of: topic, from: nil, to: nil, configuration: configuration, logger: logger, progress: progress
        ) { message in
            if let event = try? AccountRecord.decode(
                key: message.keyString, value: message.value, signature: message.signature, keys: keys)
            {
                directory.apply(event)
            }
        }
        return directory
    }
}
