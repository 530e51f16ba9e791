import Foundation
import IntentEvents
import Testing

@Suite("What a consumer of stage events has acted on")
struct ReplayGuardTests {
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("the same bytes again are a repeat; the same id with other bytes is refused")
    func repeatsAndReuse() {
        var seen = ReplayGuard()
        #expect(seen.admit(id: "e1", bytes: Array("one".utf8), time: t0, now: t0) == .first)
        #expect(seen.admit(id: "e1", bytes: Array("one".utf8), time: t0, now: t0) == .repeated)
        #expect(seen.admit(id: "e1", bytes: Array("two".utf8), time: t0, now: t0) == .reused)
        #expect(seen.admit(id: "e2", bytes: Array("one".utf8), time: t0, now: t0) == .first)
        #expect(seen.count == 2)
    }

    @Test("entries are forgotten once their time is older than the window, and memory is capped")
    func bounded() {
        var seen = ReplayGuard(window: .seconds(600), capacity: 3)
        #expect(seen.admit(id: "old", bytes: [1], time: t0, now: t0) == .first)
        // Within the window it is remembered; past it, an event that old is refused as stale
        // by the freshness check before the guard is asked, so it may be forgotten.
        #expect(seen.admit(id: "old", bytes: [1], time: t0, now: t0.addingTimeInterval(599)) == .repeated)
        #expect(
            seen.admit(id: "new", bytes: [1], time: t0.addingTimeInterval(601), now: t0.addingTimeInterval(601))
                == .first)
        #expect(seen.count == 1, "the old entry is forgotten")
        for index in 0..<10 {
            _ = seen.admit(
                id: "e\(index)", bytes: [1], time: t0.addingTimeInterval(601), now: t0.addingTimeInterval(601))
        }
        #expect(seen.count == 3)
        #expect(
            seen.admit(id: "e9", bytes: [1], time: t0.addingTimeInterval(601), now: t0.addingTimeInterval(601))
                == .repeated)
        #expect(
            seen.admit(id: "e0", bytes: [1], time: t0.addingTimeInterval(601), now: t0.addingTimeInterval(601))
                == .first)
    }
}
