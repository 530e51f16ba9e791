import Kafka

/// The records this process itself published to a followed topic, so the
/// topic's follower can pass over them without decoding, verifying and
/// applying them again.
///
/// Why skipping is sound: a stage applies every state event to its
/// in-memory state before it publishes it (the same lock, the same event),
/// and applying is idempotent by event id, so the follower's copy of such a
/// record changes nothing. A record is passed over only if it is byte for
/// byte (key, value, headers, signature included) one this process applied
/// and published: anyone else's record, or a copy differing in any byte, is
/// applied as always. Nothing in a record can make the follower skip it.
///
/// Two stages, so the follower wins the race with the acknowledgements (the
/// worker hands a batch's state over while it decides the next one, and the
/// follower often reads a record before its delivery report is in):
/// 1. ``expect(_:)`` before the records are handed to the producer: the
///    follower passes over a record equal to an expected one;
/// 2. once the delivery reports are in, ``confirm(_:in:position:)`` moves an
///    acknowledged record the follower has not read yet to its position
///    (partition and offset, from this producer's own reports), and
///    ``withdraw(_:)`` forgets a failed one. A registration below the
///    follower's position is dropped, and entries the follower passes are
///    dropped as it advances, so nothing accumulates, even if a log lost
///    and reused offsets (then the record there is applied as always).
///
/// Pure bookkeeping; ``TopicFollower`` holds it under its lock.
struct OwnRecords: Sendable {
    /// One produced record and where it was stored.
    struct Entry: Sendable {
        var offset: Int64
        var key: [UInt8]?
        var value: [UInt8]?
        var headers: [KafkaHeader]
    }

    /// Per partition, ascending by offset; `head` entries at the front are already consumed.
    private struct Queue: Sendable {
        var entries: [Entry] = []
        var head = 0

        var count: Int { entries.count - head }

        /// Drops the entries below `offset`; returns how many.
        mutating func drop(below offset: Int64) -> Int {
            let start = head
            while head < entries.count, entries[head].offset < offset { head += 1 }
            let dropped = head - start
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return dropped
        }

        /// The entry at `offset`, removed with every entry below it (`count` is lowered by all of them).
        mutating func take(at offset: Int64, _ count: inout Int) -> Entry? {
            count -= drop(below: offset)
            guard head < entries.count, entries[head].offset == offset else { return nil }
            let entry = entries[head]
            count -= drop(below: offset + 1)
            return entry
        }

        /// Inserts in order; returns whether it was new.
        mutating func insert(_ entry: Entry) -> Bool {
            guard let last = entries.last, last.offset >= entry.offset else {
                entries.append(entry)
                return true
            }
            // Out of order (two batches' reports interleaved): keep the queue sorted.
            guard let index = entries[head...].firstIndex(where: { $0.offset >= entry.offset }),
                entries[index].offset != entry.offset
            else { return false }
            entries.insert(entry, at: index)
            return true
        }
    }

    /// A record's bytes as a dictionary key: equal only if key, value and headers are;
    /// hashed over the length and the start of the value (where the event's causation
    /// and ids are), so a lookup does not hash a whole record.
    struct Fingerprint: Hashable, Sendable {
        var key: [UInt8]?
        var value: [UInt8]
        var headers: [KafkaHeader]

        func hash(into hasher: inout Hasher) {
            hasher.combine(value.count)
            value.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.prefix(96))) }
        }

        /// Byte for byte (``OwnRecords/same(_:_:_:as:_:_:)``).
        static func == (lhs: Fingerprint, rhs: Fingerprint) -> Bool {
            same(lhs.key, lhs.value, lhs.headers, as: rhs.key, rhs.value, rhs.headers)
        }
    }

    /// Whether two records are byte for byte the same: values and keys by `memcmp`
    /// (``RecordBytes``), headers by ``KafkaHeader``'s byte equality, in order. Every
    /// record read back is compared so, registered or expected.
    static func same(
        _ key: [UInt8]?, _ value: [UInt8]?, _ headers: [KafkaHeader],
        as otherKey: [UInt8]?, _ otherValue: [UInt8]?, _ otherHeaders: [KafkaHeader]
    ) -> Bool {
        RecordBytes.equal(value, otherValue) && RecordBytes.equal(key, otherKey) && headers == otherHeaders
    }

    /// By partition number: one follower follows one topic.
    private var queues: [Int32: Queue] = [:]
    /// Records handed to the producer whose delivery reports are not in yet, with how many copies.
    private var expected: [Fingerprint: Int] = [:]
    /// How many registrations are waiting for the follower (for tests and leak checks).
    private(set) var count = 0
    private(set) var expectedCount = 0

    init() {}

    var isEmpty: Bool { count == 0 && expectedCount == 0 }

    /// A record about to be handed to the producer (its state already applied).
    mutating func expect(_ record: Fingerprint) {
        expected[record, default: 0] += 1
        expectedCount += 1
    }

    /// The delivery report of an expected record: if the follower has not read it yet,
    /// it is now waited for at its position (``register(_:in:position:)``).
    mutating func confirm(_ entry: Entry, in partition: Int32, position: Int64) {
        guard let value = entry.value,
            unexpect(Fingerprint(key: entry.key, value: value, headers: entry.headers))
        else { return }
        register(entry, in: partition, position: position)
    }

    /// An expected record the broker did not take.
    mutating func withdraw(_ record: Fingerprint) {
        _ = unexpect(record)
    }

    /// Removes one expected copy; false if there was none.
    private mutating func unexpect(_ record: Fingerprint) -> Bool {
        guard expectedCount > 0, let copies = expected[record] else { return false }
        expected[record] = copies > 1 ? copies - 1 : nil
        expectedCount -= 1
        return true
    }

    /// Registers a record this process produced, stored at `offset` of `partition`;
    /// `position` is the follower's next offset there. A record the follower has
    /// already read is not registered: it was applied the ordinary way.
    mutating func register(_ entry: Entry, in partition: Int32, position: Int64) {
        guard entry.offset >= position else { return }
        if queues[partition, default: Queue()].insert(entry) { count += 1 }
    }

    /// Whether `message` is a record this process produced, exactly as produced (at its
    /// position, once known). Consumes the registration (and any below it, which the
    /// follower passed) or one expected copy.
    mutating func take(_ message: KafkaConsumerMessage) -> Bool {
        if count > 0, let entry = queues[message.partition]?.take(at: message.offset, &count),
            Self.same(entry.key, entry.value, entry.headers, as: message.key, message.value, message.headers)
        {
            return true
        }
        guard expectedCount > 0, let value = message.value else { return false }
        return unexpect(Fingerprint(key: message.key, value: value, headers: message.headers))
    }

    /// Drops the registrations below the follower's new `position` in `partition`.
    mutating func drop(below position: Int64, in partition: Int32) {
        guard count > 0, let dropped = queues[partition]?.drop(below: position) else { return }
        count -= dropped
    }
}
