public import Logging

extension KafkaConsumer {
    /// Commits the stored offsets if `clock`'s backoff allows, for a poll
    /// loop that must keep going while the cluster is unreachable. Returns
    /// true when nothing is left to commit (committed, nothing stored, or
    /// refused by a rebalance or a lost assignment, which the next owner's
    /// redo covers), false when a transient failure left the offsets stored
    /// for a later call. Throws what cannot heal and ``GaveUpError`` once
    /// commits have failed for the policy's give-up time.
    public func commit(retryingWith clock: inout GiveUpClock, logger: Logger) async throws -> Bool {
        guard clock.isDue else { return false }
        do {
            if try await !commit() {
                logger.notice("commit refused during a rebalance; the next commit or revoke covers it")
            }
            clock.succeeded("commit offsets", logger: logger)
            return true
        } catch {
            _ = try clock.failed("commit offsets", error, logger: logger)
            return false
        }
    }
}
