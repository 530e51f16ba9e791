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
}
