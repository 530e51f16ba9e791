import BrokerTestSupport
import Foundation
import IntentEvents
import Kafka
import LocalBroker
import Synchronization
import Testing

@testable import IntentWorkers

/// A follower passes over the records its own process published (registered from delivery
/// reports) and still applies everything else, another instance's records included.
@Suite("Follower: own records passed over, others applied")
struct FollowerOwnRecordsTests {
    @Test("own records are passed over unread; another instance's and unannounced records are applied")
    func passesOverOwnRecords() async throws {
        try await withBroker { broker in
            let applied = Mutex<[String]>([])
            let topic = uniqueName("followed")
            try await createTopic(broker, topic, partitions: 2)
            let ours = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            let theirs = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            func record(_ name: String, user: String) -> KafkaProducerMessage {
                KafkaProducerMessage(
                    topic: topic, key: user, value: Array(name.utf8),
                    headers: [KafkaHeader(key: "intent-signature", string: "sig-\(name)")])
            }
            let own = (0..<20).map { record("own-\($0)", user: "user-\($0 % 4)") }
            let other = (0..<20).map { record("other-\($0)", user: "user-\($0 % 4)") }
            // Interleaved on the same partitions, as two instances of one worker write them.
            var ownReports: [KafkaDeliveryReport] = []
            let follower = try TopicFollower(
                configuration: clientConfiguration(broker), topic: topic, logger: testLogger,
                apply: { message in
                    applied.withLock { $0.append(String(decoding: message.value ?? [], as: UTF8.self)) }
                }, reject: { _, _ in })
            follower.publishing(own)
            for index in 0..<20 {
                ownReports += try await ours.sendAll([own[index]])
                _ = try await theirs.sendAll([other[index]])
            }

            // Half confirmed by delivery report before the follower reads, half only announced.
            follower.published(Array(zip(own, ownReports)).prefix(10).map { (message: $0.0, report: $0.1) })
            // A record for another topic is not this follower's business.
            var elsewhere = record("elsewhere", user: "u")
            elsewhere.topic = "another"
            follower.publishing([elsewhere])
            follower.published([
                (elsewhere, KafkaDeliveryReport(topic: "another", partition: 0, offset: 100))
            ])
            let following = Task { try await follower.follow() }
            try await follower.caughtUp()
            #expect(Set(applied.withLock { $0 }) == Set(other.map { String(decoding: $0.value!, as: UTF8.self) }))
            #expect(follower.passedOverCount == own.count)
            #expect(follower.appliedCount == own.count + other.count, "positions advance over own records too")
            // The announced half's reports arrive after the follower read them: nothing is left.
            follower.published(Array(zip(own, ownReports)).suffix(10).map { (message: $0.0, report: $0.1) })
            #expect(follower.pendingOwnCount == 0)

            // Not announced (another process's copy of the same worker would be like this): applied.
            let late = record("own-late", user: "user-1")
            let lateReport = try await ours.send(late)
            try await follower.caughtUp()
            follower.published([(late, lateReport)])
            #expect(applied.withLock { $0.contains("own-late") }, "applied the ordinary way")
            #expect(follower.passedOverCount == own.count)
            #expect(follower.pendingOwnCount == 0, "a report nobody announced registers nothing")

            // Announced, then not delivered: withdrawn.
            let failed = record("own-failed", user: "user-2")
            follower.publishing([failed])
            #expect(follower.pendingOwnCount == 1)
            follower.published([(failed, nil)])
            #expect(follower.pendingOwnCount == 0)

            following.cancel()
            _ = try? await following.value
            await follower.close()
            await ours.shutdown()
            await theirs.shutdown()
        }
    }
}
