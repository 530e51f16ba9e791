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
    }
}
