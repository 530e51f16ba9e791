import Telemetry
import Testing

/// The W3C `traceparent` a hop reads and writes.
@Suite("W3C traceparent")
struct TraceParentTests {
    static let example = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test("the specification's example parses into its parts and prints back unchanged")
    func example() throws {
        let parent = try #require(TraceParent(Self.example))
        #expect(parent.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(parent.spanID == "b7ad6b7169203331")
        #expect(parent.flags == "01")
        #expect(parent.description == Self.example)
    }

    @Test(
        "anything but a version-00 value with lowercase hex and non-zero ids is not a traceparent",
        arguments: [
            "", "00", "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01",
            "00-1-2-01",
        ])
    func invalid(_ value: String) {
        #expect(TraceParent(value) == nil, "\(value)")
    }

    @Test("a child keeps the trace and the flags and names the new span")
    func child() throws {
        let parent = try #require(TraceParent(Self.example))
        let child = parent.child(spanID: "00f067aa0ba902b7")
        #expect(child.description == "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")
        #expect(TraceParent(child.description) == child)
    }

    @Test("derived span ids are 16 lowercase hex digits, the same for the same seed, different otherwise")
    func derivedSpanIDs() throws {
        let seeds = (0..<2000).map { "intent-confirm/request-load-\($0)-1" }
        let ids = seeds.map(TraceParent.spanID(derivedFrom:))
        #expect(Set(ids).count == seeds.count, "no collisions among 2,000 seeds")
        #expect(ids == seeds.map(TraceParent.spanID(derivedFrom:)), "deterministic")
        let parent = try #require(TraceParent(Self.example))
        for id in ids {
            #expect(TraceParent(parent.child(spanID: id).description) != nil, "\(id) is a valid span id")
        }
        #expect(TraceParent.spanID(derivedFrom: "a/x") != TraceParent.spanID(derivedFrom: "b/x"), "per worker")
    }
}
