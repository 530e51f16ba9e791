import IntentEvents
import Testing

@Suite("Derived event ids")
struct DerivedEventIDTests {
    /// Expected values computed independently (Python hashlib) from the definition:
    /// SHA-256 of the length-prefixed parts, first 16 bytes, version 8 and variant bits set.
    @Test("are the RFC 9562 version 8 UUID of the SHA-256 of the length-prefixed parts")
    func knownValues() {
        #expect(
            EventID.derived("intent.resolved.v1", "user-1", "intent-1", "1") == "8d73ab08-2bae-81bf-9d1f-5f46dc11194f")
        #expect(EventID.derived("孙波", "", "Юлия") == "b202bf5e-a5a3-83dd-b23d-580ed1e23837")
        #expect(EventID.derived([]) == "e3b0c442-98fc-8c14-9afb-f4c8996fb924")
        // One part and five through the variadic path; two through its fixed-arity overload.
        #expect(EventID.derived("x") == "553f121d-1ece-82a1-b42c-9c2c999380c9")
        #expect(EventID.derived("ab", "c") == "430fb1b4-ac43-816e-8a81-fab27a1930ab")
        #expect(EventID.derived("a", "b", "c", "d", "e") == "41656c7d-b902-814d-9794-f952d8895503")
    }

    @Test("the same id from the fixed-arity overloads as from an array of the parts")
    func overloadsAgree() {
        let parts = ["message", "alice", "i-1", "孙波"]
        #expect(EventID.derived(parts[0], parts[1]) == EventID.derived(Array(parts[0..<2])))
        #expect(EventID.derived(parts[0], parts[1], parts[2]) == EventID.derived(Array(parts[0..<3])))
        #expect(EventID.derived(parts[0], parts[1], parts[2]) == "3ffe1e4a-c678-8254-ac83-5928949a38d0")
        #expect(EventID.derived(parts[0], parts[1], parts[2], parts[3]) == EventID.derived(parts))
        #expect(
            EventID.derived(prefix: "msg-", parts[0], parts[1], parts[2]) == "msg-3ffe1e4a-c678-8254-ac83-5928949a38d0")
        #expect(EventID.derived(prefix: "", parts[0], parts[1], parts[2]) == "3ffe1e4a-c678-8254-ac83-5928949a38d0")
    }
}
