public import CoreMetrics
public import Logging

/// Account records a reader ignored under the accounts directory's rules (a version it
/// has passed, a handle another account holds): a warning naming the record and why, and
/// `intent_account_records_ignored_total{reason}`, which an operator alerts on, since
/// either means someone wrote the accounts topic with the ledger operator's key past
/// `intentctl`'s checks. The workers' directory and the app state report alike.
public struct IgnoredAccountRecords: Sendable {
    let logger: Logger
    let factory: any MetricsFactory

    public init(logger: Logger, metrics: any MetricsFactory) {
        self.logger = logger
        factory = metrics
    }

    public func record(reason: String, detail: String, event: String, user: String, kind: String) {
        Counter(label: "intent_account_records_ignored_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
        logger.warning(
            "account record ignored",
            metadata: [
                "event": "\(event)", "user": "\(user)", "kind": "\(kind)", "reason": "\(reason)", "detail": "\(detail)",
            ])
    }
}
