public import IntentEvents

/// How long a posted transfer's credit may be on its way to the payee's member before the
/// audit reports it, and the audit's "now" to measure that against.
///
/// A credit's effect waits on the confirmations topic until the payee's member records it,
/// normally within seconds. One that waits for ever is money kept in clearing: a payee's
/// member crash-looping, or a consumer that committed the payments group past the effect
/// without crediting it (with one Kafka credential for every workload, any of them can;
/// SECURITY.md, Known gaps). Without a deadline the audit counted such a credit "in
/// transit", as if on its way, however old it was.
public struct CreditDeadline: Sendable, Hashable {
    /// When the audit looks: the end of the period read, or when its reading began. Never
    /// the wall clock inside the rules, so an audit of the same records says the same.
    public var asOf: Timestamp
    /// How long a credit may take; a posted transfer whose credit has travelled longer is a finding.
    public var limit: Duration

    /// An hour: far past a rebalance or a restart, well before anyone would miss the money.
    public static let defaultLimit: Duration = .seconds(3600)

    public init(asOf: Timestamp, limit: Duration = Self.defaultLimit) {
        self.asOf = asOf
        self.limit = limit
    }

    /// The limit as a person reads it: whole minutes, else seconds.
    var limitDescription: String {
        let seconds = limit.components.seconds
        return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }

    /// Whether a credit whose transfer was posted at `postedAt` is overdue.
    func isOverdue(postedAt: Timestamp) -> Bool {
        // Without a product or difference that could overflow for a huge limit or odd times.
        let (limit, tooLong) = limit.components.seconds.multipliedReportingOverflow(by: 1000)
        let (elapsed, overflow) = asOf.milliseconds.subtractingReportingOverflow(postedAt.milliseconds)
        return !tooLong && !overflow && elapsed > limit
    }
}
