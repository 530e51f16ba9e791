public import IntentEvents
public import Intents

/// Fencing by claims written into a partitioned state topic (the payments
/// worker's ledger: ``Payments/LedgerOwner``), as the stage loop sees it: closures
/// over the stage's state, so the loop needs to know nothing of the ledger.
///
/// The loop claims every partition it gains before deciding there, and stops
/// (``StageFenced``) as soon as another member's claim is the latest on a
/// partition it decides for: before deciding a batch, and before sending the
/// notices (responses, effects) of a state round, once its follower has read the
/// round's records back and so every claim written before them.
public struct PartitionOwnership: Sendable {
    /// The state topic the claims are in: its follower applies them in the topic's order.
    public var topic: String
    /// Claims for those of `partitions` this member holds no claim on (built, not applied:
    /// the follower applies them as the topic orders them, so the first claim there wins).
    public var claims: @Sendable (_ partitions: Set<Int32>, _ partitionCount: Int) -> [(Destination, EventEnvelope)]
    /// After the claims were read back: takes each claim made for one of `partitions` as this
    /// member's where it is the latest; returns the partitions where another claim won.
    public var adopt: @Sendable (_ partitions: Set<Int32>) -> Set<Int32>
    /// Of `partitions`, those where a claim other than this member's is now the latest.
    public var fenced: @Sendable (_ partitions: Set<Int32>) -> Set<Int32>
    /// Of `partitions`, those where a record this member wrote was read back behind another
    /// member's newer claim (so every reader refused it). Exact where ``fenced`` is not: a
    /// partition given up in a rebalance is claimed by its next owner after this member's
    /// last records, which count.
    public var overtaken: @Sendable (_ partitions: Set<Int32>) -> Set<Int32>

    public init(
        topic: String,
        claims: @escaping @Sendable (Set<Int32>, Int) -> [(Destination, EventEnvelope)],
        adopt: @escaping @Sendable (Set<Int32>) -> Set<Int32>,
        fenced: @escaping @Sendable (Set<Int32>) -> Set<Int32>,
        overtaken: @escaping @Sendable (Set<Int32>) -> Set<Int32>
    ) {
        self.overtaken = overtaken
        self.topic = topic
        self.claims = claims
        self.adopt = adopt
        self.fenced = fenced
    }
}

/// A member found another member's claim on a partition it decided for: it lost the
/// partition without noticing (it stalled past its session). It stops at once, sending
/// nothing more: what it wrote under its old claim is refused by every reader, and the
/// partition's owner redoes what it had not finished. An orchestrator restarts it.
public struct StageFenced: Error, CustomStringConvertible {
    public var topic: String
    public var partitions: Set<Int32>
    public var when: String

    public var description: String {
        "fenced \(when): partition(s) \(partitions.sorted()) of \(topic) hold a record that overtakes this member's decisions (another member's newer claim, or an event under an id it decided with); stopping without publishing what it decided there"
    }
}
