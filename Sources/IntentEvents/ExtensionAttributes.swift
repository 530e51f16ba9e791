/// An event's CloudEvents extension attributes: what a producer adds beyond
/// the attributes this pipeline reads (`traceparent`, `partitionkey`, a voice
/// service's own). CloudEvents requires consumers to accept any extension
/// and forward it; a hostile producer must not be able to smuggle anything
/// else through them, so each one is checked here:
/// - names are 1 to ``maximumNameLength`` lowercase ASCII letters and digits
///   (the specification's rule, with its recommended length as a limit);
/// - values are strings (at most ``maximumStringBytes`` bytes), integers in
///   the specification's 32-bit range, or booleans; `null` means absent, as
///   the JSON event format says; objects, arrays and fractions are refused;
/// - at most ``maximumCount`` of them.
/// A refusal names the attribute (`$.name`), so the dead letter says which.
public struct ExtensionAttributes: Sendable, Hashable {
    public static let maximumCount = 32
    public static let maximumNameLength = 20
    public static let maximumStringBytes = 2048

    public struct Member: Sendable, Hashable {
        public var name: String
        public var value: JSONValue
    }

    /// Sorted by name, each name once: the order canonical JSON writes them.
    public private(set) var members: [Member] = []

    public init() {}

    /// Validates the members of a decoded event that are not attributes the
    /// pipeline knows; a repeated name keeps its first value, as the parser's
    /// objects do. The first invalid one in name order is the one reported.
    public init(validating others: [(key: String, value: JSONValue)]) throws(EventDecodingError) {
        guard !others.isEmpty else { return }
        members = Self.firstOfEachName(others)
        // Validated in name order, in place: a null member is dropped.
        var kept = 0
        for index in members.indices {
            guard let value = try Self.validated(name: members[index].name, value: members[index].value)
            else { continue }
            members[kept] = Member(name: members[index].name, value: value)
            kept += 1
        }
        members.removeLast(members.count - kept)
        guard members.count <= Self.maximumCount else {
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(members[Self.maximumCount].name)",
                "more than \(Self.maximumCount) extension attributes")
        }
    }

    /// The first member of each name, in name order. A few members (a pipeline record carries
    /// one or two: its chain link, a trace context) are sorted in place, into the one array
    /// kept: a table and a sorted copy of its keys were two more allocations and a hash per
    /// member on every record read. Many (only a hostile or unusual producer sends more than a
    /// handful) go through a table, so the work stays linear in the count.
    private static func firstOfEachName(_ others: [(key: String, value: JSONValue)]) -> [Member] {
        guard others.count > 8 else {
            var sorted: [Member] = []
            sorted.reserveCapacity(others.count)
            for (name, value) in others {
                var index = sorted.endIndex
                while index > sorted.startIndex, name < sorted[index - 1].name { index -= 1 }
                if index > sorted.startIndex, sorted[index - 1].name == name { continue }
                sorted.insert(Member(name: name, value: value), at: index)
            }
            return sorted
        }
        var byName: [String: JSONValue] = [:]
        for (name, value) in others where byName[name] == nil { byName[name] = value }
        return byName.keys.sorted().map { Member(name: $0, value: byName[$0] ?? .null) }
    }

    /// The members as (name, value), in name order.
    public var sorted: [(name: String, value: JSONValue)] { members.map { ($0.name, $0.value) } }

    public var isEmpty: Bool { members.isEmpty }

    public subscript(name: String) -> JSONValue? {
        members.first { $0.name == name }?.value
    }

    /// Sets (or, with `nil`, removes) one attribute, checked as a decoded one is.
    public mutating func set(_ name: String, _ value: JSONValue?) throws(EventDecodingError) {
        members.removeAll { $0.name == name }
        guard let value, let checked = try Self.validated(name: name, value: value) else { return }
        let index = members.firstIndex { $0.name > name } ?? members.endIndex
        members.insert(Member(name: name, value: checked), at: index)
        guard members.count <= Self.maximumCount else {
            members.remove(at: index)
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(name)", "more than \(Self.maximumCount) extension attributes")
        }
    }

    /// Whether `name` is a valid CloudEvents attribute name (and within the length limit).
    public static func isValidName(_ name: String) -> Bool {
        let letters = UInt8(ascii: "a")...UInt8(ascii: "z")
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        return (1...maximumNameLength).contains(name.utf8.count)
            && name.utf8.allSatisfy { letters.contains($0) || digits.contains($0) }
    }

    /// The value to keep, nil for an absent (`null`) one, or the refusal.
    static func validated(name: String, value: JSONValue) throws(EventDecodingError) -> JSONValue? {
        guard isValidName(name) else {
            if name == "data_base64" {
                throw EventDecodingError(
                    .schemaInvalid, field: "$.data_base64", "binary data is not accepted: data must be JSON")
            }
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(name)",
                "not a valid attribute name: CloudEvents attribute names are 1 to \(maximumNameLength) lowercase ASCII letters and digits"
            )
        }
        switch value {
        case .null: return nil
        case .bool: return value
        case .integer(let number) where Int32(exactly: number) != nil: return value
        case .string(let text) where text.utf8.count <= maximumStringBytes: return value
        case .string(let text):
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(name)",
                "extension attribute is \(text.utf8.count) bytes; the limit is \(maximumStringBytes)")
        case .integer, .number:
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(name)",
                "extension attribute numbers are whole numbers from -2147483648 to 2147483647")
        case .array, .object:
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(name)",
                "extension attribute values are strings, integers or booleans, got \(value.typeName)")
        }
    }
}
