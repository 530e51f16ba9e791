public import Logging

/// How long a worker rides out a broker outage: which failures it retries,
/// how it backs off, and when it stops trying.
///
/// Transient failures (``KafkaError/Code/isTransient``: broker unreachable,
/// timed out, coordinator or leader moving, assignment lost, a produce timed
/// out) are retried with ``Backoff``. Only when a run of failures has lasted
/// ``giveUpAfter`` does the worker stop, with a log line saying why, so a
/// restart of the broker or of a node never restarts the workers too. Errors
/// that cannot heal stop at once: authentication and TLS failures, invalid
/// configuration, a consumer that failed fatally, and a producer whose fatal
/// error replacing its instance (see ``KafkaProducer``) did not cure
/// ``replacementAttempts`` times in a row.
///
/// A value passed down explicitly (the worker's configuration, a follower's and
/// the chain reader's initializers), never read from the task: what a worker
/// does in an outage is visible where it is built.
public struct RetryPolicy: Sendable, Hashable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    /// How long a run of failures may last before the caller gives up.
    public var giveUpAfter: Duration
    /// Consecutive fatal producer failures tolerated (the producer replaces its
    /// instance after each) before giving up at once.
    public var replacementAttempts: Int

    public init(
        initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5),
        giveUpAfter: Duration = .seconds(300), replacementAttempts: Int = 3
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
        self.replacementAttempts = replacementAttempts
    }

    /// Five minutes: longer than a broker restart or a leader election, short
    /// enough that a cluster that is really gone is reported by the process
    /// supervisor within minutes.
    public static let standard = RetryPolicy()

    /// What to do about a failure.
    public enum Verdict: Sendable, Hashable {
        /// Try again later.
        case retry
        /// A fatal producer error; the producer has replaced its instance, so try again, a bounded number of times.
        case retryWithNewInstance
        /// Cannot heal; stop now.
        case stop
    }

    public static func verdict(for error: any Error) -> Verdict {
        guard let error = error as? KafkaError else { return .stop }
        if error.code.isAuthentication || error.code == .invalidArgument || error.code == .destroyed { return .stop }
        if error.code == .fatal || error.code.isProducerIdentityRejected { return .retryWithNewInstance }
        // A fatal error of a consumer or admin instance: nothing replaces those.
        if error.isFatal { return .stop }
        return error.code.isTransient || error.isRetriable ? .retry : .stop
    }

    /// Runs `body` until it succeeds, retrying transient failures with
    /// backoff; rethrows a failure that cannot heal, and throws
    /// ``GaveUpError`` once failures have lasted ``giveUpAfter``.
    public func retrying<Result>(
        _ operation: String, logger: Logger, _ body: () async throws -> Result
    ) async throws -> Result {
        var clock = GiveUpClock(policy: self)
        while true {
            do {
                let result = try await body()
                clock.succeeded(operation, logger: logger)
                return result
            } catch {
                try await Task.sleep(for: try clock.failed(operation, error, logger: logger))
            }
        }
    }
}
