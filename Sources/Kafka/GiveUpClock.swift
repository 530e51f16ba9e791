public import Logging

/// Tracks one run of failures of an operation a worker keeps retrying: when
/// it began, the backoff, and whether it has lasted long enough to give up.
///
/// For loops that must not block on a failing call (a commit is retried by
/// the next iteration while records keep flowing) ``isDue`` says whether the
/// backoff has passed; ``RetryPolicy/retrying(_:logger:_:)`` uses it to sleep.
public struct GiveUpClock: Sendable {
    public let policy: RetryPolicy
    private var backoff: Backoff
    private var firstFailure: ContinuousClock.Instant?
    private var nextAttempt: ContinuousClock.Instant?
    private var replacements = 0

    public init(policy: RetryPolicy) {
        self.policy = policy
        backoff = Backoff(initial: policy.initialDelay, maximum: policy.maximumDelay)
    }

    /// True when no backoff is pending.
    public var isDue: Bool { nextAttempt.map { ContinuousClock.now >= $0 } ?? true }

    /// True while a run of failures is going on.
    public var isFailing: Bool { firstFailure != nil }

    /// Records a failure and returns the delay before the next attempt.
    /// Throws `error` itself when it cannot heal, and ``GaveUpError`` when
    /// the failures have lasted the policy's give-up time.
    public mutating func failed(_ operation: String, _ error: any Error, logger: Logger) throws -> Duration {
        if error is CancellationError { throw error }
        let now = ContinuousClock.now
        let first = firstFailure ?? now
        firstFailure = first
        switch RetryPolicy.verdict(for: error) {
        case .stop:
            logger.critical(
                "\(operation) failed with an error that retrying cannot fix; stopping",
                metadata: ["error": "\(error)"])
            throw error
        case .retryWithNewInstance:
            replacements += 1
            if replacements > policy.replacementAttempts {
                let gaveUp = GaveUpError(operation: operation, failingFor: now - first, lastError: error)
                logger.critical("\(gaveUp)")
                throw gaveUp
            }
        case .retry:
            break
        }
        if now - first >= policy.giveUpAfter {
            let gaveUp = GaveUpError(operation: operation, failingFor: now - first, lastError: error)
            logger.critical("\(gaveUp)")
            throw gaveUp
        }
        let delay = backoff.next()
        nextAttempt = now + delay
        // One line per failure, not per record: the delays grow, so an outage logs a few dozen lines.
        logger.warning(
            "\(operation) failed; retrying",
            metadata: [
                "error": "\(error)", "attempt": "\(backoff.attempts)", "retry_in": "\(delay)",
                "failing_for": "\(now - first)", "give_up_after": "\(policy.giveUpAfter)",
            ])
        return delay
    }

    /// Ends a run of failures (logging the recovery if there was one).
    public mutating func succeeded(_ operation: String, logger: Logger) {
        guard let first = firstFailure else { return }
        logger.notice(
            "\(operation) recovered", metadata: ["failed_for": "\(ContinuousClock.now - first)"])
        firstFailure = nil
        nextAttempt = nil
        replacements = 0
        backoff.reset()
    }
}

/// A worker stopped because the cluster kept failing for longer than its give-up time.
public struct GaveUpError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let failingFor: Duration
    public let lastError: any Error

    public init(operation: String, failingFor: Duration, lastError: any Error) {
        self.operation = operation
        self.failingFor = failingFor
        self.lastError = lastError
    }

    public var description: String {
        "giving up: \(operation) has been failing for \(failingFor); last error: \(lastError)"
    }
}
