import Testing

@testable import Kafka

/// `RecordBytes` answers as the standard library's equality does, on arrays built to differ
/// in one place: length, first byte, last byte, absence.
@Suite("Record bytes: memcmp equality as Array's")
struct RecordBytesTests {
    @Test("byte arrays and optional byte arrays")
    func arrays() {
        var generator = SystemRandomNumberGenerator()
        var samples: [[UInt8]?] = [nil, [], [0], [1], [0, 0]]
        for count in [1, 7, 8, 15, 16, 31, 64, 1_000] {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            samples.append(bytes)
            var first = bytes
            first[0] &+= 1
            samples.append(first)
            var last = bytes
            last[count - 1] &+= 1
            samples.append(last)
            samples.append(bytes + [0])
        }
        for lhs in samples {
            for rhs in samples {
                #expect(
                    RecordBytes.equal(lhs, rhs) == (lhs == rhs), "\(String(describing: lhs)) \(String(describing: rhs))"
                )
                if let lhs, let rhs { #expect(RecordBytes.equal(lhs, rhs) == (lhs == rhs)) }
            }
        }
    }

    @Test("header names are compared as bytes, not by canonical equivalence")
    func namesAsBytes() {
        let kelvin = KafkaHeader(key: "\u{212A}ey", value: [1])
        let ascii = KafkaHeader(key: "Key", value: [1])
        #expect(kelvin.key == ascii.key, "Swift's String equality: canonically equivalent")
        #expect(!(kelvin == ascii))
        #expect(!([kelvin] == [ascii]))
        #expect(KafkaHeader(key: "Key", value: [1]) == ascii)
    }

    @Test("headers: names and values, in order")
    func headers() {
        let a = KafkaHeader(key: "a", value: [1, 2])
        let b = KafkaHeader(key: "b", value: [1, 2])
        let empty = KafkaHeader(key: "a", value: [])
        let absent = KafkaHeader(key: "a", value: nil)
        let other = KafkaHeader(key: "a", value: [1, 3])  // the same length, another byte
        let lists: [[KafkaHeader]] = [[], [a], [b], [empty], [absent], [other], [a, b], [b, a], [a, a], [a, other]]
        for lhs in lists {
            for rhs in lists {
                let expected =
                    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
                #expect((lhs == rhs) == expected)
            }
        }
    }
}
