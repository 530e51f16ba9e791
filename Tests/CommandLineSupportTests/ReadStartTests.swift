import CommandLineSupport
import Testing

/// `events read --offset` as kcat users write it (issue 31, point 4).
@Suite("Where events read starts")
struct ReadStartTests {
    @Test(
        "the forms of --offset",
        arguments: [
            ("beginning", ReadStart.beginning), ("end", .end), ("latest", .end), ("42", .offset(42)),
            ("-10", .last(10)),
            ("0", .offset(0)),
        ])
    func forms(_ text: String, _ start: ReadStart) {
        #expect(ReadStart(text) == start)
    }

    @Test("what is no offset is refused", arguments: ["", "first", "1.5", "10x"])
    func refused(_ text: String) {
        #expect(ReadStart(text) == nil)
    }

    @Test("each form within a partition that holds offsets 100..<250")
    func withinRetained() {
        #expect(ReadStart.beginning.offset(low: 100, high: 250) == 100)
        #expect(ReadStart.end.offset(low: 100, high: 250) == 250)
        #expect(ReadStart.offset(120).offset(low: 100, high: 250) == 120)
        #expect(ReadStart.offset(7).offset(low: 100, high: 250) == 100)  // deleted by retention: the oldest kept
        #expect(ReadStart.offset(900).offset(low: 100, high: 250) == 250)
        #expect(ReadStart.last(10).offset(low: 100, high: 250) == 240)
        #expect(ReadStart.last(1000).offset(low: 100, high: 250) == 100)
    }
}
