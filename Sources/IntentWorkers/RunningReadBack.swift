import Synchronization

/// A state round's read-back running beside the worker's loop (``StageAction/readBack(_:resent:)``),
/// so the loop goes on deciding and sending later state rounds while the follower reads this
/// one back; the loop reports it when it is done (``isDone``) or when the runtime waits for it.
final class RunningReadBack: Sendable {
    private let task: Task<Void, any Error>
    private let finished: Finished

    /// Set once the read-back ended, either way: the loop looks without awaiting.
    private final class Finished: Sendable {
        let value = Atomic<Bool>(false)
    }

    init(_ body: @escaping @Sendable () async throws -> Void) {
        let finished = Finished()
        self.finished = finished
        task = Task {
            defer { finished.value.store(true, ordering: .releasing) }
            try await body()
        }
    }

    var isDone: Bool { finished.value.load(ordering: .acquiring) }

    /// Its outcome: `StageFenced` or the follower's failure stop the worker.
    func result() async throws { try await task.value }
}
