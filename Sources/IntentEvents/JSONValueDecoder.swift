import Foundation

/// Decodes a payload type straight from a parsed ``JSONValue``, as Foundation's
/// `JSONDecoder` decoded it from the value's canonical text, without
/// writing and re-reading that text for every event.
///
/// The same values are accepted and refused: strings only from strings,
/// booleans only from booleans, an integer type from any number it holds
/// exactly, floating point from any number; `Data`, `URL` and `Decimal`,
/// which Foundation decodes in its own way, are handed to it.
/// `PayloadCodingEquivalenceTests` compares the results.
enum JSONValueDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(link: Link(value: value)).decodeValue(T.self)
    }

    /// Decodes as ``decode(_:from:)`` does, and tells whether the decoding read
    /// every member of every object and every element of every array in
    /// `value`, each exactly once (``ReadTracker``): then a payload type that
    /// writes back what it reads has no unknown field, without re-encoding it.
    static func decodeReadingEverything<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> (
        value: T, readEverything: Bool
    ) {
        let tracker = ReadTracker()
        let decoded = try ValueDecoder(link: Link(value: value, tracker: tracker)).decodeValue(T.self)
        return (decoded, tracker.readEverything(of: value))
    }

    /// `value` as `JSONValue.init(from:)` decodes it: a number that an `Int64` holds exactly
    /// becomes an integer (it tries `Int64` before `Double`); everything else is unchanged.
    static func asCodableReadsIt(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number):
            if let integer = Int64(exactly: number) { return .integer(integer) }
            return value
        case .array(let elements):
            guard elements.contains(where: \.holdsNumber) else { return value }
            return .array(elements.map(asCodableReadsIt))
        case .object(let members):
            guard members.values.contains(where: \.holdsNumber) else { return value }
            return .object(members.mapValues(asCodableReadsIt))
        default: return value
        }
    }

    static func typeMismatch<T>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        .typeMismatch(
            type,
            .init(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
    }

    // The scalar readers take the coding path as an autoclosure: it is built
    // only for an error, not for every field decoded.

    static func integer<T: FixedWidthInteger>(
        _ type: T.Type, _ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        let result: T?
        switch value {
        case .integer(let integer): result = T(exactly: integer)
        case .number(let number): result = T(exactly: number)
        default: throw typeMismatch(type, value, codingPath())
        }
        guard let result else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath(), debugDescription: "Number is not representable in Swift as \(type)."))
        }
        return result
    }

    static func double(_ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .number(let number): return number
        default: throw typeMismatch(Double.self, value, codingPath())
        }
    }

    static func float(_ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Float {
        let double = try double(value, codingPath())
        guard abs(double) <= Double(Float.greatestFiniteMagnitude) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath(), debugDescription: "Number does not fit in Float."))
        }
        return Float(double)
    }

    static func bool(_ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw typeMismatch(Bool.self, value, codingPath()) }
        return bool
    }

    static func string(_ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw typeMismatch(String.self, value, codingPath()) }
        return string
    }

    /// A value being decoded, and where it is: its parent and its key, from
    /// which the coding path is built when asked for (an error, or a type that
    /// reads `codingPath`) instead of an array per level for every value.
    /// When the decoding is tracked, it also records what was read of the
    /// object or array it holds, for the ``ReadTracker``.
    final class Link {
        let value: JSONValue
        let parent: Link?
        let key: (any CodingKey)?
        let tracker: ReadTracker?
        private var opened = false
        private var unkeyedContainers = 0
        /// Members begun, to notice one read twice (the first few in an
        /// array, which is faster than hashing for the objects payloads have).
        private var begunKeys: [String] = []
        private var moreBegunKeys: Set<String> = []

        init(value: JSONValue, parent: Link? = nil, key: (any CodingKey)? = nil, tracker: ReadTracker? = nil) {
            self.value = value
            self.parent = parent
            self.key = key
            self.tracker = tracker
        }

        func child(_ value: JSONValue, key: any CodingKey) -> Link {
            Link(value: value, parent: self, key: key, tracker: tracker)
        }

        var codingPath: [any CodingKey] {
            var path: [any CodingKey] = []
            var link = self
            while let key = link.key, let parent = link.parent {
                path.append(key)
                link = parent
            }
            return path.reversed()
        }

        /// A keyed or unkeyed container was opened on this value, which has `count` members or elements.
        func opening(count: Int, unkeyed: Bool) {
            guard let tracker else { return }
            if !opened {
                opened = true
                tracker.containersOpened += 1
                tracker.membersExpected += count
            }
            if unkeyed {
                // A second reader of one array would read its elements twice.
                unkeyedContainers += 1
                if unkeyedContainers > 1 { tracker.repeated = true }
            }
        }

        /// The whole value is read at once: every object and array in it counts as opened
        /// and every member and element as read, as when `JSONValue.init(from:)` reads them
        /// one by one.
        func takeWhole() {
            guard let tracker else { return }
            if opened || unkeyedContainers > 0 { tracker.repeated = true }
            opened = true
            func count(_ value: JSONValue) {
                switch value {
                case .object(let members):
                    tracker.containersOpened += 1
                    tracker.membersExpected += members.count
                    tracker.membersRead += members.count
                    for member in members.values { count(member) }
                case .array(let elements):
                    tracker.containersOpened += 1
                    tracker.membersExpected += elements.count
                    tracker.membersRead += elements.count
                    for element in elements { count(element) }
                default: break
                }
            }
            count(value)
        }

        /// The member `key` (present) is about to be read.
        func begin(_ key: String) {
            guard let tracker else { return }
            if begunKeys.contains(key) || moreBegunKeys.contains(key) {
                tracker.repeated = true
            } else if begunKeys.count < 16 {
                begunKeys.append(key)
            } else {
                moreBegunKeys.insert(key)
            }
        }

        /// A member or element was read successfully.
        func read() { tracker?.membersRead += 1 }
    }

    /// What a decoding read, in totals. It read every member and element of a
    /// value exactly once when it opened as many containers as the value has
    /// objects and arrays (each once: a container is counted on its first
    /// opening, and a member read twice or an array read by two containers
    /// marks the reading ``repeated``) and read as many members and elements
    /// as those containers hold (each read counts only after it succeeded).
    final class ReadTracker {
        var containersOpened = 0
        var membersExpected = 0
        var membersRead = 0
        var repeated = false

        func readEverything(of value: JSONValue) -> Bool {
            !repeated && membersRead == membersExpected && containersOpened == Self.containers(in: value)
        }

        static func containers(in value: JSONValue) -> Int {
            switch value {
            case .object(let members): return members.values.reduce(1) { $0 + containers(in: $1) }
            case .array(let elements): return elements.reduce(1) { $0 + containers(in: $1) }
            default: return 0
            }
        }
    }

    fileprivate struct ValueDecoder: Decoder {
        let link: Link
        var value: JSONValue { link.value }
        var codingPath: [any CodingKey] { link.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
            if T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
                // Foundation's own reading of the value, as text.
                let text = CanonicalJSON.encode(JSONValue.array([value]))
                do {
                    return try JSONDecoder().decode([T].self, from: Data(text))[0]
                } catch DecodingError.typeMismatch(let type, let context) {
                    throw DecodingError.typeMismatch(
                        type, .init(codingPath: codingPath, debugDescription: context.debugDescription))
                } catch DecodingError.dataCorrupted(let context) {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath, debugDescription: context.debugDescription))
                }
            }
            if T.self == JSONValue.self {
                // A value wanted as it is (message arguments, extension attributes): taken whole
                // instead of through `JSONValue.init(from:)`, whose trial decodings (a boolean? an
                // integer? ...) each build and throw a `DecodingError`: a fifth of a stage's CPU.
                link.takeWhole()
                return JSONValueDecoder.asCodableReadsIt(value) as! T
            }
            return try T(from: self)
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else {
                throw JSONValueDecoder.typeMismatch([String: Any].self, value, codingPath)
            }
            link.opening(count: members.count, unkeyed: false)
            return KeyedDecodingContainer(KeyedContainer<Key>(members: members, link: link))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else {
                throw JSONValueDecoder.typeMismatch([Any].self, value, codingPath)
            }
            link.opening(count: elements.count, unkeyed: true)
            return UnkeyedContainer(elements: elements, link: link)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let link: Link
        var codingPath: [any CodingKey] { link.codingPath }

        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func lookUp(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return value
        }

        /// Reads the member `key` with `decode`, counting it for the tracker once read.
        private func read<T>(_ key: Key, _ decode: (JSONValue) throws -> T) throws -> T {
            let value = try lookUp(key)
            link.begin(key.stringValue)
            let result = try decode(value)
            link.read()
            return result
        }

        private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

        func decodeNil(forKey key: Key) throws -> Bool { try lookUp(key) == .null }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try read(key) { try JSONValueDecoder.bool($0, path(key)) }
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try read(key) { try JSONValueDecoder.string($0, path(key)) }
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try read(key) { try JSONValueDecoder.double($0, path(key)) }
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            try read(key) { try JSONValueDecoder.float($0, path(key)) }
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try read(key) { try ValueDecoder(link: link.child($0, key: key)).decodeValue(T.self) }
        }

        private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
            try read(key) { try JSONValueDecoder.integer(T.self, $0, path(key)) }
        }

        // Optional members with one lookup instead of the default's three
        // (contains, decodeNil, decode); absent or null is nil, as there.

        /// Reads the member `key` with `decode` unless it is absent or null.
        private func readIfPresent<T>(_ key: Key, _ decode: (JSONValue) throws -> T) throws -> T? {
            guard let value = members[key.stringValue], value != .null else { return nil }
            link.begin(key.stringValue)
            let result = try decode(value)
            link.read()
            return result
        }

        private func integerIfPresent<T: FixedWidthInteger>(_ key: Key) throws -> T? {
            try readIfPresent(key) { try JSONValueDecoder.integer(T.self, $0, path(key)) }
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
            try readIfPresent(key) { try JSONValueDecoder.bool($0, path(key)) }
        }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try readIfPresent(key) { try JSONValueDecoder.string($0, path(key)) }
        }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
            try readIfPresent(key) { try JSONValueDecoder.double($0, path(key)) }
        }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
            try readIfPresent(key) { try JSONValueDecoder.float($0, path(key)) }
        }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(key) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try readIfPresent(key) { try ValueDecoder(link: link.child($0, key: key)).decodeValue(T.self) }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try read(key) { try ValueDecoder(link: link.child($0, key: key)).container(keyedBy: type) }
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try read(key) { try ValueDecoder(link: link.child($0, key: key)).unkeyedContainer() }
        }

        // A super decoder reads later, or not at all: begun, never counted as read.
        func superDecoder() throws -> any Decoder {
            if members["super"] != nil { link.begin("super") }
            return ValueDecoder(link: link.child(members["super"] ?? .null, key: AnyKey("super")))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            if members[key.stringValue] != nil { link.begin(key.stringValue) }
            return ValueDecoder(link: link.child(members[key.stringValue] ?? .null, key: key))
        }
    }

    private struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let link: Link
        var currentIndex = 0

        init(elements: [JSONValue], link: Link) {
            self.elements = elements
            self.link = link
        }

        var codingPath: [any CodingKey] { link.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private func path(_ index: Int) -> [any CodingKey] { codingPath + [AnyKey(index: index)] }

        /// The next element and its index.
        private mutating func next(_ type: Any.Type) throws -> (JSONValue, Int) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, .init(codingPath: path(currentIndex), debugDescription: "Unkeyed container is at end."))
            }
            defer { currentIndex += 1 }
            return (elements[currentIndex], currentIndex)
        }

        /// An element read successfully, counted for the tracker.
        private func counted<T>(_ result: T) -> T {
            link.read()
            return result
        }

        private func child(_ value: JSONValue, _ index: Int) -> ValueDecoder {
            ValueDecoder(link: link.child(value, key: AnyKey(index: index)))
        }

        // An element skipped as null is not counted as read.
        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any?.self, .init(codingPath: path(currentIndex), debugDescription: "Unkeyed container is at end."))
            }
            guard elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool {
            let (value, index) = try next(type)
            return counted(try JSONValueDecoder.bool(value, path(index)))
        }
        mutating func decode(_ type: String.Type) throws -> String {
            let (value, index) = try next(type)
            return counted(try JSONValueDecoder.string(value, path(index)))
        }
        mutating func decode(_ type: Double.Type) throws -> Double {
            let (value, index) = try next(type)
            return counted(try JSONValueDecoder.double(value, path(index)))
        }
        mutating func decode(_ type: Float.Type) throws -> Float {
            let (value, index) = try next(type)
            return counted(try JSONValueDecoder.float(value, path(index)))
        }
        mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, index) = try next(type)
            return counted(try child(value, index).decodeValue(T.self))
        }

        private mutating func integer<T: FixedWidthInteger>() throws -> T {
            let (value, index) = try next(T.self)
            return counted(try JSONValueDecoder.integer(T.self, value, path(index)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let (value, index) = try next(type)
            return counted(try child(value, index).container(keyedBy: type))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, index) = try next([Any].self)
            return counted(try child(value, index).unkeyedContainer())
        }

        // A super decoder reads later, or not at all: never counted as read.
        mutating func superDecoder() throws -> any Decoder {
            let (value, index) = try next(Any.self)
            return child(value, index)
        }
    }
}

extension JSONValueDecoder.ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try JSONValueDecoder.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try JSONValueDecoder.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try JSONValueDecoder.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try JSONValueDecoder.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONValueDecoder.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }
}

extension JSONValue {
    /// Whether a floating-point number is anywhere in it.
    fileprivate var holdsNumber: Bool {
        switch self {
        case .number: true
        case .array(let elements): elements.contains(where: \.holdsNumber)
        case .object(let members): members.values.contains(where: \.holdsNumber)
        default: false
        }
    }
}
