import Foundation
import Testing

@testable import IntentEvents

@Suite("Event time formatting")
struct EventTimeFormatTests {
    @Test("integer formatting gives Foundation's text, from 1970 to year 9999")
    func matchesFoundation() {
        var state: UInt64 = 16
        var samples: [Int64] = [
            0, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000,
            1_795_000_000_123, 253_402_300_799_999,
        ]
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Int64(state >> 16) % 253_402_300_800_000)
        }
        for milliseconds in samples {
            #expect(
                EventTime.civilFormat(milliseconds: milliseconds)
                    == EventTime.foundationFormat(milliseconds: milliseconds),
                "\(milliseconds)")
        }
        #expect(EventTime.civilFormat(milliseconds: -1) == nil)
        #expect(EventTime.civilFormat(milliseconds: 253_402_300_800_000) == nil)
        #expect(EventTime.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test("integer parsing of the events' form gives Foundation's instants, and leaves everything else to it")
    func parsingMatchesFoundation() {
        var state: UInt64 = 23
        var samples: [Int64] = [
            0, 999, 1000, 86_399_999, 951_782_400_000, 951_868_799_999, 1_795_000_000_123, 253_402_300_799_999,
        ]
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Int64(state >> 16) % 253_402_300_800_000)
        }
        var fast = 0
        for milliseconds in samples {
            let text = EventTime.format(milliseconds: milliseconds)
            let whole = String(text.dropLast(5)) + "Z"
            for text in [text, whole] {
                #expect(EventTime.civilParse(text) != nil, "\(text)")
                if EventTime.civilParse(text) != nil { fast += 1 }
                #expect(EventTime.parse(text) == EventTime.foundationParse(text), "\(text)")
            }
        }
        #expect(fast == samples.count * 2)
        let others = [
            "2026-02-29T00:00:00Z", "2024-02-29T12:00:00.000Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
            "2026-01-01T23:59:60Z", "2026-01-01t10:00:00Z", "2026-01-01T10:00:00z", "2026-01-01T10:00:00.5Z",
            "2026-01-01T10:00:00.0002Z", "2026-01-01T10:00:00+02:00", "1969-12-31T23:59:59.999Z",
            "0001-01-01T00:00:00Z", "2026-01-01 10:00:00Z", "2026-1-01T10:00:00.000Z", "２０２６-01-01T10:00:00Z",
            "2026-01-01T10:00:00.12aZ", "", "not a time", "2100-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
        ]
        for text in others {
            #expect(EventTime.parse(text) == EventTime.foundationParse(text), "\(text)")
        }
    }
}
