import BrokerTestSupport
import Kafka
import Synchronization
import Testing

@Suite("Riding out outages: backoff, retry verdicts, give-up time")
struct RetryPolicyTests {
    static func error(_ code: KafkaError.Code, fatal: Bool = false) -> KafkaError {
        KafkaError(code: code, name: "\(code.rawValue)", message: "test", operation: "test", isFatal: fatal)
    }

    @Test("backoff doubles up to its cap, with half of each delay random")
    func backoff() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(2))
        for attempt in 0..<12 {
            let ceiling = min(Duration.seconds(2), .milliseconds(100) * (1 << attempt))
            let delay = backoff.next()
            #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt): \(delay)")
        }
        backoff.reset()
        #expect(backoff.next() <= .milliseconds(100))
    }

    @Test("outage errors are retried; authentication, bad configuration and fatal consumers stop at once")
    func verdicts() {
        for code: KafkaError.Code in [
            .transport, .timedOut, .allBrokersDown, .messageTimedOut, .assignmentLost, .maxPollExceeded,
            .coordinatorNotAvailable, .notCoordinator, .unknownTopicOrPartition, .purgeInFlight,
        ] {
            #expect(RetryPolicy.verdict(for: Self.error(code)) == .retry, "\(code)")
        }
        #expect(RetryPolicy.verdict(for: Self.error(.fatal)) == .retryWithNewInstance)
        #expect(RetryPolicy.verdict(for: Self.error(.producerFenced)) == .retryWithNewInstance)
        for code: KafkaError.Code in [.authentication, .saslAuthenticationFailed, .invalidArgument, .destroyed] {
            #expect(RetryPolicy.verdict(for: Self.error(code)) == .stop, "\(code)")
        }
        #expect(RetryPolicy.verdict(for: Self.error(.illegalGeneration, fatal: true)) == .stop)
        #expect(RetryPolicy.verdict(for: CancellationError()) == .stop)
    }

    @Test("a transient failure is retried until it heals")
    func heals() async throws {
        let calls = Mutex(0)
        let policy = RetryPolicy(initialDelay: .milliseconds(1), maximumDelay: .milliseconds(5))
        let value = try await policy.retrying("test call", logger: testLogger) {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call < 4 { throw Self.error(.timedOut) }
            return call
        }
        #expect(value == 4)
    }

    @Test("failures that last the give-up time end in GaveUpError; one that cannot heal ends at once")
    func givesUp() async throws {
        let policy = RetryPolicy(
            initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20), giveUpAfter: .milliseconds(200))
        let started = ContinuousClock.now
        let attempts = Mutex(0)
        await #expect(throws: GaveUpError.self) {
            try await policy.retrying("test call", logger: testLogger) { () async throws -> Void in
                attempts.withLock { $0 += 1 }
                throw Self.error(.allBrokersDown)
            }
        }
        // It waited the give-up time, backing off between attempts: at most one attempt per
        // initial delay (a loaded machine makes fewer, never more; no upper bound on wall time).
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(200), "\(elapsed)")
        #expect((2...41).contains(attempts.withLock { $0 }), "\(attempts.withLock { $0 }) attempts")

        let calls = Mutex(0)
        await #expect(throws: KafkaError.self) {
            try await policy.retrying("test call", logger: testLogger) { () async throws -> Void in
                calls.withLock { $0 += 1 }
                throw Self.error(.authentication)
            }
        }
        #expect(calls.withLock { $0 } == 1)

        let replacements = Mutex(0)
        await #expect(throws: GaveUpError.self) {
            try await RetryPolicy(initialDelay: .milliseconds(1), replacementAttempts: 3).retrying(
                "test call", logger: testLogger
            ) { () async throws -> Void in
                replacements.withLock { $0 += 1 }
                throw Self.error(.fatal)
            }
        }
        #expect(replacements.withLock { $0 } == 4)
    }
}
