/// What a stage runtime is configured with, instead of task-local settings: how
/// it batches, how often it commits and punctuates, how it rides out failures,
/// and which of the optional parts (fencing, partitioned state, snapshots) it runs.
public struct StageRuntimePolicy: Sendable, Hashable {
    /// Records decided per poll, at most.
    public var maximumBatch: Int
    /// How often finished work is committed while records keep coming (it is always
    /// committed when nothing is in flight): a crash redoes at most this much.
    public var commitInterval: Duration
    /// How many batches may wait or be in flight before the runtime stops deciding
    /// and waits for acknowledgements: bounds memory and the redo after a crash.
    public var maximumBatchesInFlight: Int
    /// Periodic work (the payments stage's expiry sweep, a punctuation); nil: none.
    public var tickInterval: Duration?
    /// How often owned partitioned state is snapshotted; nil: never.
    public var snapshotInterval: Duration?
    /// Fencing by claims: claim gained partitions, read a state round back before its
    /// notices go, and drain before the assignment is applied.
    public var fencing: Bool
    /// Partitioned state is restored as soon as partitions are assigned, not at the next record.
    public var restoresOnAssignment: Bool
    /// How failed publishes and commits are retried, and when the runtime gives up.
    public var retry: RetrySchedule
    /// How long a poll may wait with nothing in flight, and with work in flight
    /// (acknowledgements are picked up between polls).
    public var idlePoll: Duration
    public var busyPoll: Duration

    public init(
        maximumBatch: Int = 1000, commitInterval: Duration = .milliseconds(200), maximumBatchesInFlight: Int = 8,
        tickInterval: Duration? = nil, snapshotInterval: Duration? = nil, fencing: Bool = false,
        restoresOnAssignment: Bool = false, retry: RetrySchedule = RetrySchedule(),
        idlePoll: Duration = .milliseconds(200), busyPoll: Duration = .milliseconds(1)
    ) {
        self.maximumBatch = maximumBatch
        self.commitInterval = commitInterval
        self.maximumBatchesInFlight = maximumBatchesInFlight
        self.tickInterval = tickInterval
        self.snapshotInterval = snapshotInterval
        self.fencing = fencing
        self.restoresOnAssignment = restoresOnAssignment
        self.retry = retry
        self.idlePoll = idlePoll
        self.busyPoll = busyPoll
    }
}
