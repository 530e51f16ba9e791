import CoreMetrics
import IntentResolution
import Kafka
import Logging
import Telemetry

extension DirectoryChange {
    /// Counts and logs a contact or settings record older than what the directory holds
    /// (``StaleDirectoryRecord``); an applied one needs no word.
    func report(_ message: KafkaConsumerMessage, metrics: any MetricsFactory, logger: Logger) {
        guard case .stale(let version, let seen) = self else { return }
        StaleDirectoryRecord.report(version: version, seen: seen, of: message, metrics: metrics, logger: logger)
    }
}
