internal import CRdkafka

/// Owns an `rd_kafka_topic_partition_list_t`. Confined to the thread that made it.
final class TopicPartitionList {
    let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    init(capacity: Int = 1) {
        pointer = rd_kafka_topic_partition_list_new(Int32(max(1, capacity)))
    }

    /// Takes ownership of a list librdkafka handed over (e.g. from `rd_kafka_assignment`).
    init(owning pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) {
        self.pointer = pointer
    }

    /// Copies a list that librdkafka still owns (e.g. the argument of a rebalance callback).
    convenience init(copying pointer: UnsafePointer<rd_kafka_topic_partition_list_t>) {
        self.init(owning: rd_kafka_topic_partition_list_copy(pointer))
    }

    convenience init(_ partitions: [KafkaTopicPartition], offset: Int64 = Int64(RD_KAFKA_OFFSET_INVALID)) {
        self.init(capacity: partitions.count)
        for partition in partitions {
            add(partition, offset: offset)
        }
    }

    convenience init(_ offsets: [KafkaPartitionOffset]) {
        self.init(capacity: offsets.count)
        for offset in offsets {
            add(offset.topicPartition, offset: offset.offset)
        }
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    func add(_ topicPartition: KafkaTopicPartition, offset: Int64) {
        let element = rd_kafka_topic_partition_list_add(pointer, topicPartition.topic, topicPartition.partition)!
        element.pointee.offset = offset
    }

    struct Element {
        var topicPartition: KafkaTopicPartition
        var offset: Int64
        var error: rd_kafka_resp_err_t
    }

    var elements: [Element] {
        let list = pointer.pointee
        return (0..<Int(list.cnt)).map { index in
            let element = list.elems[index]
            return Element(
                topicPartition: KafkaTopicPartition(
                    topic: String(cString: element.topic), partition: element.partition),
                offset: element.offset,
                error: element.err
            )
        }
    }

    var topicPartitions: [KafkaTopicPartition] { elements.map(\.topicPartition) }

    /// Throws the first per-partition error, if any.
    func checkElements(_ operation: String) throws(KafkaError) {
        for element in elements where element.error != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError(rawCode: element.error, operation: "\(operation) \(element.topicPartition)")
        }
    }
}
