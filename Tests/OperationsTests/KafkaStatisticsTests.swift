import Foundation
import Kafka
import Testing

/// librdkafka's statistics JSON (STATISTICS.md) reduced to what the metrics need.
@Suite("librdkafka statistics")
struct KafkaStatisticsTests {
    /// The shape librdkafka 2.x emits, trimmed: one real broker, the group
    /// coordinator's logical alias, an assigned partition with lag, one it only
    /// knows of, and the internal unassigned partition -1.
    static let sample = """
        {"name":"w#consumer-1","type":"consumer","msg_cnt":7,"txmsgs":0,"rxmsgs":1234,
         "brokers":{
           "127.0.0.1:9092/1":{"name":"127.0.0.1:9092/1","nodeid":1,"state":"UP","source":"learned","rtt":{"avg":2500}},
           "GroupCoordinator":{"name":"GroupCoordinator","nodeid":1,"state":"UP","source":"logical","rtt":{"avg":0}},
           "127.0.0.1:9093/bootstrap":{"name":"127.0.0.1:9093/bootstrap","nodeid":-1,"state":"DOWN","source":"configured"}
         },
         "topics":{"in":{"topic":"in","partitions":{
           "0":{"partition":0,"desired":true,"consumer_lag":42,"hi_offset":100,"committed_offset":58},
           "1":{"partition":1,"desired":false,"consumer_lag":-1,"hi_offset":-1,"committed_offset":-1001},
           "-1":{"partition":-1,"desired":false,"consumer_lag":-1}
         }}}}
        """

    @Test("brokers, partitions, lag and queue counts are read; logical brokers and partition -1 are left out")
    func parses() throws {
        let statistics = try #require(KafkaStatistics(json: Array(Self.sample.utf8)))
        #expect(statistics.clientName == "w#consumer-1")
        #expect(statistics.queuedMessages == 7)
        #expect(statistics.receivedMessages == 1234)
        #expect(statistics.brokers.map(\.name) == ["127.0.0.1:9092/1", "127.0.0.1:9093/bootstrap"])
        #expect(statistics.brokers.first?.averageRoundTrip == .microseconds(2500))
        #expect(statistics.anyBrokerUp)
        #expect(statistics.partitions.map(\.partition) == [0, 1])
        let assigned = try #require(statistics.partitions.first)
        #expect(assigned.isAssigned && assigned.consumerLag == 42 && assigned.committedOffset == 58)
        let known = statistics.partitions[1]
        #expect(!known.isAssigned && known.consumerLag == nil && known.highWatermark == nil)
    }

    @Test("only a bootstrap address up is not a reachable cluster; text that is not an object is refused")
    func edges() {
        let bootstrapOnly = """
            {"name":"c","brokers":{"b":{"name":"a:1/bootstrap","nodeid":-1,"state":"UP"}}}
            """
        #expect(KafkaStatistics(json: Array(bootstrapOnly.utf8))?.anyBrokerUp == false)
        #expect(KafkaStatistics(json: Array("[1,2]".utf8)) == nil)
        #expect(KafkaStatistics(json: Array("not json".utf8)) == nil)
    }
}
