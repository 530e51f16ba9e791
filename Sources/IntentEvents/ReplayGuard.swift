public import Foundation

/// What a consumer of stage events has acted on, by event id and a hash of the
/// event's bytes, so a validly signed event re-appended to its topic acts
/// again on nothing: the same bytes are a redelivery or a replay (skipped),
/// the same id with other bytes is refused as `replayed`. Stage events carry
/// a freshness bound (``FreshnessWindow/stageEvents``), so an entry is kept
/// only while an event of its time could still be accepted; `capacity`
/// bounds memory whatever the rate (the oldest entries go first).
///
/// Kept in memory by each worker for the partitions it owns, and rebuilt when
/// a worker gains a partition (after a restart, or from another member) from
/// that input partition's records up to the group's committed offset, the
/// durable record of what was acted on (the workers' `ReplayMemory`). Nothing
/// here is persisted, so the fingerprint of bytes may use `Hasher` (seeded per
/// process): a process compares only fingerprints it computed itself.
public struct ReplayGuard: Sendable {
    public enum Decision: Sendable, Hashable {
        /// Not seen before: act on it (it is now remembered).
        case first
        /// The same event again (same id, same bytes): nothing to do.
        case repeated
        /// The same id with other contents: refuse it.
        case reused
    }

    private struct Entry: Sendable {
        var id: String
        var hash: Int
        var time: Date
    }

    private var hashes: [String: Int] = [:]
    private var order: [Entry] = []
    private var orderStart = 0
    /// How long an event's time keeps it remembered: the stage events' freshness bound.
    public let window: Duration
    public let capacity: Int

    public init(window: Duration = FreshnessWindow.stageEvents.past, capacity: Int = 200_000) {
        precondition(capacity > 0)
        self.window = window
        self.capacity = capacity
    }

    public var count: Int { hashes.count }

    /// Whether to act on the event `bytes` encode, with id `id` and time `time`; `now`
    /// forgets what is older than the window.
    public mutating func admit(id: String, bytes: [UInt8], time: Date, now: Date) -> Decision {
        var hasher = Hasher()
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return admit(id: id, fingerprint: hasher.finalize(), time: time, now: now)
    }

    /// The same for an event whose contents are already summed up in `fingerprint`: a
    /// verified event's signature (an HMAC over its bytes or its canonical form) names its
    /// contents as well as a hash of them would, and costs nothing more to hash.
    public mutating func admit(id: String, fingerprint hash: Int, time: Date, now: Date) -> Decision {
        forget(before: now.addingTimeInterval(-Double(window.components.seconds)))
        if let seen = hashes[id] { return seen == hash ? .repeated : .reused }
        hashes[id] = hash
        order.append(Entry(id: id, hash: hash, time: time))
        while hashes.count > capacity { evictOldest() }
        return .first
    }

    private mutating func forget(before cutoff: Date) {
        while orderStart < order.count, order[orderStart].time < cutoff { evictOldest() }
    }

    private mutating func evictOldest() {
        let entry = order[orderStart]
        if hashes[entry.id] == entry.hash { hashes[entry.id] = nil }
        orderStart += 1
        // Compact now and then, not on every eviction.
        if orderStart > 1024, orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}

extension FreshnessWindow {
    /// Events one stage publishes for the next (resolved intents, proposals, confirmed
    /// intents) are acted on within seconds; ten minutes (the longest a user may take to
    /// confirm, so a proposal older than that could not be confirmed anyway) allows for a
    /// worker's restart and a backlog. Older ones are refused as `stale`: a captured stage
    /// event cannot be replayed later, and a consumer need remember what it acted on only
    /// for this long (``ReplayGuard``).
    public static let stageEvents = FreshnessWindow(past: .seconds(600), future: .seconds(30))
}
