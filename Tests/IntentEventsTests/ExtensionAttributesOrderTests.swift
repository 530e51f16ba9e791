import StageRuntime
import Testing

@testable import IntentEvents

/// `ExtensionAttributes(validating:)` sorts a few members in place and many through a table:
/// either way the same members are kept (the first of each name, names compared as Swift
/// compares strings, so canonically equivalent spellings are one name) in the same order, and
/// the same member is refused first.
@Suite("Extension attributes: the first of each name, in name order")
struct ExtensionAttributesOrderTests {
    /// The rule as a reference: a table of the first value of each name, its names sorted.
    static func reference(_ others: [(key: String, value: JSONValue)]) -> Result<[String], EventDecodingError> {
        var byName: [String: JSONValue] = [:]
        for (name, value) in others where byName[name] == nil { byName[name] = value }
        var kept: [String] = []
        for name in byName.keys.sorted() {
            do throws(EventDecodingError) {
                if try ExtensionAttributes.validated(name: name, value: byName[name] ?? .null) != nil {
                    kept.append(name)
                }
            } catch {
                return .failure(error)
            }
        }
        return .success(kept)
    }

    @Test("seeded member lists of 0 to 14 members, with repeats, equivalent spellings and refusals")
    func sameAsTheTable() {
        let names = ["traceparent", "chain", "zz", "a1", "b", "locale", "é", "e\u{301}", "Bad", "x", "y", "k9", "m"]
        let values: [JSONValue] = [.string("v"), .integer(3), .bool(false), .null, .string("w"), .array([])]
        var random = SplitMix64(seed: 29)
        var sawRepeat = false
        var sawRefusal = false
        for _ in 0..<5_000 {
            let others = (0..<Int(random.next() % 15)).map { _ in
                (key: names[Int(random.next() % UInt64(names.count))], value: values[Int(random.next() % 6)])
            }
            let expected = Self.reference(others)
            let read = Result { () throws(EventDecodingError) in
                try ExtensionAttributes(validating: others).members.map(\.name)
            }
            #expect(read == expected, "\(others)")
            sawRepeat = sawRepeat || Set(others.map(\.key)).count < others.count
            if case .failure = expected { sawRefusal = true }
        }
        #expect(sawRepeat && sawRefusal)
    }

    @Test("the first value of a repeated name is the one kept")
    func firstValueKept() throws {
        let attributes = try ExtensionAttributes(validating: [
            ("b", .string("first")), ("a", .integer(1)), ("b", .string("second")),
        ])
        #expect(attributes.members.map(\.name) == ["a", "b"])
        #expect(attributes["b"] == .string("first"))
    }
}
