/// Which partition a keyed record goes to: Kafka's murmur2 partitioner (the
/// Java client's default, and librdkafka's `murmur2_random` that this
/// library's producers use). Workers use it to know which users' state they
/// own: a user's records all land on `partition(forKey: userID, ...)`.
public enum KafkaPartitioner {
    /// Hashed in place when the key's bytes are contiguous (an array's, a native string's):
    /// every record a stage writes is placed by its key, and copying each key into an array
    /// first was an allocation per record.
    public static func partition(forKey key: some Collection<UInt8>, partitions: Int) -> Int32 {
        precondition(partitions > 0)
        let hash = key.withContiguousStorageIfAvailable(murmur2) ?? Array(key).withUnsafeBufferPointer(murmur2)
        return Int32(Int(hash & 0x7fff_ffff) % partitions)
    }

    public static func partition(forKey key: String, partitions: Int) -> Int32 {
        partition(forKey: key.utf8, partitions: partitions)
    }

    /// Kafka's variant of MurmurHash2 (seed 0x9747b28c).
    static func murmur2(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer(murmur2)
    }

    static func murmur2(_ data: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let m: UInt32 = 0x5bd1_e995
        let r: UInt32 = 24
        var h: UInt32 = 0x9747_b28c ^ UInt32(truncatingIfNeeded: data.count)
        let blocks = data.count / 4
        for block in 0..<blocks {
            let i = block * 4
            var k = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24
            k = k &* m
            k ^= k >> r
            k = k &* m
            h = h &* m
            h ^= k
        }
        let tail = blocks * 4
        switch data.count % 4 {
        case 3:
            h ^= UInt32(data[tail + 2]) << 16
            h ^= UInt32(data[tail + 1]) << 8
            h ^= UInt32(data[tail])
            h = h &* m
        case 2:
            h ^= UInt32(data[tail + 1]) << 8
            h ^= UInt32(data[tail])
            h = h &* m
        case 1:
            h ^= UInt32(data[tail])
            h = h &* m
        default:
            break
        }
        h ^= h >> 13
        h = h &* m
        h ^= h >> 15
        return h
    }
}
