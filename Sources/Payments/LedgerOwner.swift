/// The claim under which one payments member writes one partition of the ledger:
/// a fencing token in the ledger itself. A member that gains a partition first
/// appends an `ownerClaimed` event with the next epoch, and stamps every event it
/// writes there with its claim (``LedgerEvent/owner``); every reader of the
/// ledger (``Ledger``) accepts a stamped event only while its claim is the
/// partition's latest. A member that stalled past its session (stopped, paused,
/// partitioned away) and resumes after another member claimed the partition
/// therefore writes nothing anyone applies, whatever it decided meanwhile, and
/// learns it when its follower reads the newer claim (so it sends none of the
/// decisions' effects or responses either).
///
/// Why in the records and not the broker: the local broker does not fence group
/// members (it accepts offset commits from a member that left the group) and does
/// not filter aborted transactions, and a partition's order is the one thing every
/// Kafka implementation guarantees. The member string tells two claims of one
/// epoch apart (two members that claimed at once: the first in the partition wins).
public struct LedgerOwner: Sendable, Hashable, CustomStringConvertible {
    public var partition: Int32
    public var epoch: Int
    /// Unique per worker process (a random id): a restarted member claims anew.
    public var member: String

    public init(partition: Int32, epoch: Int, member: String) {
        self.partition = partition
        self.epoch = epoch
        self.member = member
    }

    /// `PARTITION/EPOCH/MEMBER`, as ``LedgerEvent/owner`` carries it.
    public var description: String { "\(partition)/\(epoch)/\(member)" }

    /// Parses ``description``; nil for anything else.
    ///
    /// By bytes, not characters: every reader parses the stamp of every claim it meets and of
    /// every stamped event not stamped by a latest claim, and splitting and checking by
    /// grapheme (with Unicode property look-ups for letters) was 2.6% of a simulated run.
    /// The same texts parse: a member is ASCII letters, digits and `-`, so a text with any
    /// other byte (and so any text whose `/` a combining mark would join) is refused either way.
    public init?(_ text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 3, let partition = Int32(Substring(parts[0])), partition >= 0,
            let epoch = Int(Substring(parts[1])), epoch > 0, !parts[2].isEmpty,
            parts[2].allSatisfy(Self.isMemberByte)
        else { return nil }
        self.init(partition: partition, epoch: epoch, member: String(Substring(parts[2])))
    }

    /// An ASCII letter, digit or `-`.
    private static func isMemberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// The claim that follows `current` (the partition's latest, nil before the first).
    public static func next(after current: LedgerOwner?, partition: Int32, member: String) -> LedgerOwner {
        LedgerOwner(partition: partition, epoch: (current?.epoch ?? 0) + 1, member: member)
    }

    /// The event that claims the partition. Keyed by `key` (a key the topic's
    /// partitioner places on this partition: the claim must land where it fences);
    /// its id names the claim, so a claim sent again after a failed delivery is one claim.
    public func claimEvent(key: String) -> LedgerEvent {
        var event = LedgerEvent(
            id: "ledger-owner-\(partition)-\(epoch)-\(member)", kind: .ownerClaimed, userID: key)
        event.owner = description
        return event
    }

    /// The claim key for `partition`: `partition-owner.P.N` with the smallest N that
    /// `placement` puts on it (the topic's partitioner; keys are found, not configured,
    /// so any partition count works).
    public static func claimKey(partition: Int32, placement: (String) -> Int32) -> String {
        var attempt = 0
        while true {
            let key = "partition-owner.\(partition).\(attempt)"
            if placement(key) == partition { return key }
            attempt += 1
        }
    }
}

/// Each ledger partition's latest claim, and the rule every reader applies with it: a
/// claim counts only if its epoch is above the partition's latest; an event stamped with
/// a claim (``LedgerEvent/owner``) counts only while that claim is its partition's latest.
/// Unstamped events (the ledger operator's, and those written before claims) are not fenced.
/// One rule for the deciding ledger (``Ledger``), the audit and the app state.
public struct LedgerOwnership: Sendable, Hashable {
    public private(set) var owners: [Int32: LedgerOwner] = [:]
    /// The latest claims as events carry them (``LedgerOwner/description``), those that
    /// parse back to their claim: a stamp found here counts without being parsed. Every
    /// reader checks every stamped event, and parsing each stamp was a tenth of replaying
    /// a ledger partition on restore.
    private var stamps: Set<String> = []

    public init() {}

    /// Why `event` does not count under the claims read so far, or nil when it does.
    public func refusal(of event: LedgerEvent) -> Ledger.ApplyError? {
        if event.kind == .ownerClaimed {
            // A claim that does not parse is refused by its kind's rules (a missing owner).
            guard let claim = event.owner.flatMap(LedgerOwner.init) else { return nil }
            if let current = owners[claim.partition], current.epoch >= claim.epoch {
                return .staleClaim(event: event.id, claim: claim.description, current: current.description)
            }
            return nil
        }
        guard let stamp = event.owner else { return nil }
        if stamps.contains(stamp) { return nil }
        let claim = LedgerOwner(stamp)
        guard let claim, owners[claim.partition] == claim else {
            return .fenced(event: event.id, writer: stamp, owner: claim.flatMap { owners[$0.partition] }?.description)
        }
        return nil
    }

    /// Takes a claim that counts (``refusal(of:)`` found nothing) as its partition's latest.
    public mutating func take(_ claim: LedgerOwner) {
        if let overtaken = owners[claim.partition] { stamps.remove(overtaken.description) }
        owners[claim.partition] = claim
        let stamp = claim.description
        if LedgerOwner(stamp) == claim { stamps.insert(stamp) }
    }

    /// ``refusal(of:)``, taking `event`'s claim when it is one that counts: for a reader
    /// that applies nothing else of the ledger's rules (the audit, the app state).
    public mutating func admit(_ event: LedgerEvent) -> Ledger.ApplyError? {
        if let refusal = refusal(of: event) { return refusal }
        if event.kind == .ownerClaimed, let claim = event.owner.flatMap(LedgerOwner.init) { take(claim) }
        return nil
    }
}
