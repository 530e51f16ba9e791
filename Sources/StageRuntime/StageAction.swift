/// Where one input record came from.
public struct InputPosition: Hashable, Sendable {
    public var partition: Int32
    public var offset: Int64

    public init(partition: Int32, offset: Int64) {
        self.partition = partition
        self.offset = offset
    }
}

/// Names one batch the runtime handed out to be decided, in decision order.
public struct BatchID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: BatchID, rhs: BatchID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "batch \(rawValue)" }
}

/// The two publishing rounds of a batch: what is state first (ledger, history,
/// proposals, dead letters), then, once that is acknowledged, what others react to.
public enum PublishRound: Hashable, Sendable {
    case state
    case notices
}

/// What an acknowledgement or a failure reported to the runtime is about.
public enum StageTicket: Hashable, Sendable {
    /// One batch's records of a state round.
    case state(BatchID)
    /// One batch's notices.
    case notices(BatchID)
    /// The commit of the stored offsets.
    case commit
    /// With fencing: the read-back of the state round that starts with this batch
    /// (``StageAction/readBack(_:resent:)``), reported done once every record of the round
    /// was read back under this member's claims (the host stops when one was not).
    case readBack(BatchID)
}

/// Why a runtime stopped.
public enum StageStop: Hashable, Sendable {
    /// Shut down: everything in flight was finished and committed.
    case finished
    /// `ticket`'s operation kept failing for the schedule's give-up time.
    case gaveUp(StageTicket, failingFor: Duration)
}

/// What the host does for the runtime, in the order given. Actions the host completes
/// before it reports the next event (``decide``, ``restore``, ``claim``, ``snapshot``,
/// ``storeOffsets``) are done when the host returns to the runtime; ``publish`` and
/// ``commit`` end with an acknowledgement or a failure event, ``readBack`` with an
/// acknowledgement of ``StageTicket/readBack(_:)`` (or the host stopping).
public enum StageAction: Hashable, Sendable {
    /// The assignment changed: partitioned state is to hold exactly `owned`, restored for
    /// `gained` (and global tables caught up when anything was gained) before any decision.
    case restore(owned: Set<Int32>, gained: Set<Int32>)
    /// Fencing: claim `owned` (the host stops if another member's claim wins).
    case claim(Set<Int32>)
    /// Drop the records of `partitions` polled and not decided yet (held while batches
    /// drain): the partitions were revoked, and whoever owns them next decides those records
    /// from the committed offset. The runtime has dropped their positions too.
    case dropHeld(Set<Int32>)
    /// Decide on `records` (and, with `tick`, run the periodic work for the owned
    /// partitions), then report ``StageRuntime/decided(_:state:notices:now:)``.
    case decide(BatchID, records: [InputPosition], tick: Bool)
    /// Hand `batches`' records of `round` to the producer, in order; `resend`: again after a
    /// failure, one batch after another.
    case publish(PublishRound, [BatchID], resend: Bool)
    /// Fencing: read the state round of `batches` back before their notices go (`resent`:
    /// without delivery reports at hand, to the end of the owned partitions), then report
    /// ``StageTicket/readBack(_:)`` of the first. Meanwhile the runtime goes on deciding and
    /// sending later state rounds; their notices wait for this read-back.
    case readBack([BatchID], resent: Bool)
    /// `batch` is finished: the next offsets to read per partition move on.
    case storeOffsets(BatchID, [Int32: Int64])
    /// Commit the stored offsets.
    case commit
    /// Capture owned partitioned state for a snapshot (`final`: at shutdown, best effort).
    case snapshot(owned: Set<Int32>, final: Bool)
    /// Stop the loop.
    case stop(StageStop)
}
