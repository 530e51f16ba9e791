/// How a stage worker batches: how many records it decides per poll and how
/// often it commits while batches keep coming. Set in the stage's configuration
/// from the worker's flags (`--max-batch`, `--commit-interval`), and handed to its
/// ``StageRuntime/StageRuntime`` as initializer arguments.
public struct BatchPolicy: Sendable, Hashable {
    /// Records decided per poll, at most. Enough to amortize the two
    /// acknowledgement rounds; small enough that deciding one batch (tens of
    /// milliseconds of CPU) does not hold up the rounds of the batches in
    /// flight. At low rates batches are small anyway.
    public var maximumBatch: Int
    /// How often finished work is committed while batches keep coming (it is
    /// always committed when the worker goes idle, and before partitions
    /// move): a crash redoes at most this much, with the same event ids.
    public var commitInterval: Duration

    public init(maximumBatch: Int = 1000, commitInterval: Duration = .milliseconds(200)) {
        self.maximumBatch = maximumBatch
        self.commitInterval = commitInterval
    }

    public static let standard = BatchPolicy()
}
