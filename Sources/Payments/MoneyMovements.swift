/// What this worker's own decisions moved since the tally was last taken:
/// payments posted and holds voided, counted and summed per currency. Kept
/// beside the ledger (not derived from it) because the ledger also replays
/// history at start, and an operator's "money moved" must count decisions,
/// not restores. Bounded by the number of currencies.
public struct MoneyMovements: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case posted, voided
    }

    public struct Total: Sendable, Hashable {
        public var count: Int
        public var micros: Int64
    }

    public struct Key: Sendable, Hashable {
        public var kind: Kind
        public var currency: String
    }

    public private(set) var totals: [Key: Total] = [:]

    public init() {}

    public var isEmpty: Bool { totals.isEmpty }

    mutating func record(_ kind: Kind, _ money: Money) {
        totals[Key(kind: kind, currency: money.currency), default: Total(count: 0, micros: 0)].count += 1
        totals[Key(kind: kind, currency: money.currency)]!.micros &+= money.micros
    }

    /// Several tallies as one (each partition's ledger keeps its own).
    public static func merged(_ tallies: [MoneyMovements]) -> MoneyMovements {
        var merged = MoneyMovements()
        for tally in tallies {
            for (key, total) in tally.totals {
                merged.totals[key, default: Total(count: 0, micros: 0)].count += total.count
                merged.totals[key]!.micros &+= total.micros
            }
        }
        return merged
    }

    /// The tally so far, leaving it empty.
    public mutating func take() -> MoneyMovements {
        defer { totals = [:] }
        return self
    }
}
