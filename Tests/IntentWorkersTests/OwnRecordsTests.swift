import Kafka
import Testing

@testable import IntentWorkers

/// The bookkeeping that lets a follower pass over the records its own process published.
/// A reference to the bookkeeping, so `#expect` can call its mutating methods.
final class Box {
    var records = OwnRecords()
    var count: Int { records.count }
    var isEmpty: Bool { records.isEmpty }
    func register(_ entry: OwnRecords.Entry, in partition: Int32, position: Int64) {
        records.register(entry, in: partition, position: position)
    }
    func take(_ message: KafkaConsumerMessage) -> Bool { records.take(message) }
    func drop(below position: Int64, in partition: Int32) {
        records.drop(below: position, in: partition)
    }
    func expect(_ record: OwnRecords.Fingerprint) { records.expect(record) }
    func confirm(_ entry: OwnRecords.Entry, in partition: Int32, position: Int64) {
        records.confirm(entry, in: partition, position: position)
    }
    func withdraw(_ record: OwnRecords.Fingerprint) { records.withdraw(record) }
}

@Suite("Own records: what a follower may pass over")
struct OwnRecordsTests {
    let partition: Int32 = 1
    let headers = [KafkaHeader(key: "intent-signature", string: "ab12")]

    func entry(_ offset: Int64, _ value: String = "v") -> OwnRecords.Entry {
        OwnRecords.Entry(offset: offset, key: Array("alice".utf8), value: Array(value.utf8), headers: headers)
    }

    func message(_ offset: Int64, _ value: String = "v", partition: Int32 = 1, headers: [KafkaHeader]? = nil)
        -> KafkaConsumerMessage
    {
        KafkaConsumerMessage(
            topic: "ledger", partition: partition, offset: offset, key: Array("alice".utf8), value: Array(value.utf8),
            headers: headers ?? self.headers, timestamp: nil)
    }

    @Test("a registered record read at its position is passed over once; others are applied")
    func passesOverOnce() {
        let own = Box()
        own.register(entry(5), in: partition, position: 3)
        own.register(entry(7), in: partition, position: 3)
        #expect(own.count == 2)
        #expect(!own.take(message(3)))
        #expect(!own.take(message(4)))
        #expect(own.take(message(5)))
        #expect(!own.take(message(5)), "a registration is used once")
        #expect(!own.take(message(6)))
        #expect(own.take(message(7)))
        #expect(own.isEmpty)
    }

    @Test("only the exact record produced there is passed over: value, key, headers, partition")
    func exactRecordOnly() {
        let own = Box()
        for offset in Int64(0)..<4 { own.register(entry(offset), in: partition, position: 0) }
        #expect(!own.take(message(0, "other value")))
        #expect(
            !own.take(
                KafkaConsumerMessage(
                    topic: "ledger", partition: 1, offset: 1, key: Array("mallory".utf8), value: Array("v".utf8),
                    headers: headers, timestamp: nil)))
        #expect(!own.take(message(2, headers: [KafkaHeader(key: "intent-signature", string: "ff00")])))
        #expect(!own.take(message(3, partition: 2)), "another partition's offset 3 is not ours")
        #expect(own.take(message(3)))
        #expect(own.isEmpty)
    }

    @Test("one byte, one absent field or one header name apart is another record, registered or expected")
    func nearMisses() {
        let value = Array(repeating: UInt8(ascii: "x"), count: 1_000) + [UInt8(ascii: "}")]
        var lastByte = value
        lastByte[lastByte.count - 1] = UInt8(ascii: "]")
        let signature = KafkaHeader(key: "intent-signature", value: Array("ab12".utf8))
        let ours = KafkaConsumerMessage(
            topic: "ledger", partition: 1, offset: 0, key: [], value: value, headers: [signature], timestamp: nil)
        var misses: [KafkaConsumerMessage] = []
        var message = ours
        message.value = lastByte
        misses.append(message)
        message = ours
        message.key = nil
        misses.append(message)
        message = ours
        message.headers = [KafkaHeader(key: "intent-signature", value: nil)]
        misses.append(message)
        message = ours
        message.headers = [KafkaHeader(key: "intent-signaturf", value: signature.value)]
        misses.append(message)
        message = ours
        message.headers = [KafkaHeader(key: "intent-signature", value: Array("ab13".utf8))]
        misses.append(message)
        message = ours
        message.headers = [signature, KafkaHeader(key: "intent-signature", value: [])]
        misses.append(message)
        for (offset, miss) in misses.enumerated() {
            let own = Box()
            var miss = miss
            miss.offset = Int64(offset)
            own.register(
                OwnRecords.Entry(offset: Int64(offset), key: ours.key, value: ours.value, headers: ours.headers),
                in: 1, position: 0)
            #expect(!own.take(miss), "registered, miss \(offset)")
            own.expect(OwnRecords.Fingerprint(key: ours.key, value: value, headers: ours.headers))
            #expect(!own.take(miss), "expected, miss \(offset)")
            var exact = ours
            exact.offset = Int64(offset + 100)
            #expect(own.take(exact), "the exact bytes are passed over")
        }
    }

    @Test("a registration the follower has already passed is dropped (lost race): nothing leaks")
    func lostRace() {
        let own = Box()
        own.register(entry(9), in: partition, position: 10)
        #expect(own.isEmpty)
        own.register(entry(10), in: partition, position: 10)
        own.register(entry(12), in: partition, position: 10)
        own.drop(below: 11, in: partition)
        #expect(own.count == 1)
        own.drop(below: 13, in: partition)
        #expect(own.isEmpty)
    }

    @Test("records read past registrations (a log that lost them) drop them as the follower advances")
    func skippedRegistrationsDrain() {
        let own = Box()
        for offset in Int64(0)..<100 { own.register(entry(offset), in: partition, position: 0) }
        #expect(!own.take(message(150)))
        #expect(own.isEmpty)
    }

    @Test("interleaved registrations stay sorted; duplicates are kept once; many entries drain")
    func ordering() {
        let own = Box()
        own.register(entry(4), in: partition, position: 0)
        own.register(entry(2), in: partition, position: 0)
        own.register(entry(3), in: partition, position: 0)
        own.register(entry(3), in: partition, position: 0)
        #expect(own.count == 3)
        #expect(own.take(message(2)))
        #expect(own.take(message(3)))
        #expect(own.take(message(4)))
        for offset in Int64(10)..<1010 { own.register(entry(offset), in: partition, position: 0) }
        for offset in Int64(10)..<1010 { #expect(own.take(message(offset))) }
        #expect(own.isEmpty)
    }

    func fingerprint(_ value: String = "v", headers: [KafkaHeader]? = nil) -> OwnRecords.Fingerprint {
        OwnRecords.Fingerprint(key: Array("alice".utf8), value: Array(value.utf8), headers: headers ?? self.headers)
    }

    @Test("an announced record read before its delivery report is passed over; the report then registers nothing")
    func expectedBeforeReport() {
        let own = Box()
        own.expect(fingerprint("a"))
        own.expect(fingerprint("b"))
        #expect(own.take(message(8, "a")))
        #expect(!own.take(message(9, "a")), "one copy announced, one passed over")
        own.confirm(entry(8, "a"), in: partition, position: 10)
        #expect(own.records.expectedCount == 1)
        #expect(own.count == 0)
        own.confirm(entry(10, "b"), in: partition, position: 10)
        #expect(own.records.expectedCount == 0)
        #expect(own.count == 1, "b is now waited for at its position")
        #expect(own.take(message(10, "b")))
        #expect(own.isEmpty)
    }

    @Test("only exactly the announced bytes: another value, key or signature header is applied")
    func expectedExactOnly() {
        let own = Box()
        own.expect(fingerprint("a"))
        #expect(!own.take(message(1, "a", headers: [KafkaHeader(key: "intent-signature", string: "ff00")])))
        #expect(
            !own.take(
                KafkaConsumerMessage(
                    topic: "ledger", partition: 1, offset: 2, key: Array("mallory".utf8), value: Array("a".utf8),
                    headers: headers, timestamp: nil)))
        #expect(!own.take(message(3, "ab")))
        #expect(own.records.expectedCount == 1)
        own.withdraw(fingerprint("a"))
        #expect(own.isEmpty, "a record the broker did not take is forgotten")
        #expect(!own.take(message(4, "a")))
    }

    @Test("a copy sent twice (a retried round) is passed over twice, and nothing is left")
    func retriedCopies() {
        let own = Box()
        own.expect(fingerprint("a"))
        own.confirm(entry(5, "a"), in: partition, position: 0)
        own.expect(fingerprint("a"))
        own.confirm(entry(6, "a"), in: partition, position: 0)
        #expect(own.take(message(5, "a")))
        #expect(own.take(message(6, "a")))
        #expect(own.isEmpty)
    }

    @Test("a report for a position the follower read without matching drops the entry (reused offsets)")
    func reportBelowPosition() {
        let own = Box()
        own.expect(fingerprint("a"))
        #expect(!own.take(message(3, "other")))
        own.confirm(entry(3, "a"), in: partition, position: 4)
        #expect(own.isEmpty)
    }
}
