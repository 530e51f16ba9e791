import Foundation

/// Encodes an `Encodable` straight into canonical JSON bytes (keys sorted per
/// object as ``CanonicalJSONWriter`` sorts them, strings escaped as it escapes
/// them), without building a ``JSONValue`` tree of dictionaries first and
/// walking it again. Every event a worker publishes has its payload encoded
/// here, and `EventEnvelope.encoded()` splices the bytes in as they are.
///
/// Two styles, because two encodings are in use and neither may change a byte:
/// - ``Style/payload``: event payloads, written as ``JSONValueEncoder``
///   followed by ``CanonicalJSONWriter`` write them (a `Double` holding an
///   integer is written as an integer; `Data`, `URL` and `Decimal` as
///   Foundation's text read back and written again);
/// - ``Style/foundation``: what ``CanonicalJSON/encode(_:)`` has always given
///   through Foundation's `JSONEncoder` (numbers and `Data`, `URL`, `Decimal`
///   as Foundation writes them).
///
/// Each object or array being written is a ``Frame``: the bytes of its
/// finished members, and where each member's bytes are. A member written
/// through `encode(_:forKey:)` is finished when that call returns and is
/// rendered into its parent's bytes then; nested containers handed out by
/// `nestedContainer` stay frames until their parent is rendered, as the
/// Codable contract lets them be filled in later.
/// `CanonicalEncoderEquivalenceTests` compares both styles with the encodings
/// they replace.
enum CanonicalEncoder {
    enum Style {
        case payload
        case foundation
    }

    static func encode(_ value: some Encodable, style: Style) throws -> [UInt8] {
        let root = Frame(kind: .array, style: style, parent: nil, indexInParent: 0)
        let index = root.appendEntry(key: "")
        try root.encode(value, at: index, settling: false)
        var output: [UInt8] = []
        output.reserveCapacity(root.bytes.count + 256)
        root.writeSlot(of: index, into: &output)
        return output
    }

    /// One object or array under construction.
    final class Frame {
        enum Kind {
            case object
            case array
        }

        /// Where a member's or element's encoding is.
        enum Slot {
            /// Nothing written (yet): `{}`, as Foundation writes a value that encodes nothing.
            case empty
            /// Finished, in this frame's ``bytes``.
            case bytes(Range<Int>)
            /// A nested container that may still be written to.
            case frame(Frame)
        }

        struct Entry {
            /// The member's key; unused in arrays.
            var key: String
            var slot: Slot
        }

        let kind: Kind
        let style: Style
        /// For coding paths, which are built only when asked for (an error, or a
        /// type that reads `codingPath`), not for every member.
        unowned let parent: Frame?
        let indexInParent: Int
        var entries: [Entry] = []
        var bytes: [UInt8] = []

        init(kind: Kind, style: Style, parent: Frame?, indexInParent: Int) {
            self.kind = kind
            self.style = style
            self.parent = parent
            self.indexInParent = indexInParent
            // Room for a typical payload object, rather than growing from one member.
            entries.reserveCapacity(8)
            bytes.reserveCapacity(256)
        }

        var codingPath: [any CodingKey] {
            guard let parent else { return [] }
            return parent.codingPath(of: indexInParent)
        }

        /// The coding path of the member or element at `index`; the root frame's single entry is the top level.
        func codingPath(of index: Int) -> [any CodingKey] {
            guard parent != nil else { return [] }
            return codingPath + [kind == .array ? AnyKey(index: index) : AnyKey(entries[index].key)]
        }

        func appendEntry(key: String) -> Int {
            entries.append(Entry(key: key, slot: .empty))
            return entries.count - 1
        }

        func appendLeaf(key: String, _ leaf: Leaf) {
            let index = appendEntry(key: key)
            setLeaf(leaf, at: index)
        }

        func setLeaf(_ leaf: Leaf, at index: Int) {
            let start = bytes.count
            switch leaf {
            case .json(let value): CanonicalJSONWriter.write(value, into: &bytes)
            case .text(let text): bytes.append(contentsOf: text)
            }
            entries[index].slot = .bytes(start..<bytes.count)
        }

        /// The container at `index`: the one already there when it is of this
        /// kind (two keyed containers on one encoder write one object), else a new one.
        func container(at index: Int, kind: Kind) -> Frame {
            if case .frame(let frame) = entries[index].slot, frame.kind == kind { return frame }
            let frame = Frame(kind: kind, style: style, parent: self, indexInParent: index)
            entries[index].slot = .frame(frame)
            return frame
        }

        func appendContainer(key: String, kind: Kind) -> Frame {
            container(at: appendEntry(key: key), kind: kind)
        }

        /// Encodes `value` as the entry at `index`, finished when this returns:
        /// a container it wrote is rendered into ``bytes`` (unless `settling` is
        /// false, for the top level, which is rendered straight into the output).
        func encode<T: Encodable>(_ value: T, at index: Int, settling: Bool = true) throws {
            if let special = try Leaf.special(value, style: style) {
                setLeaf(special, at: index)
                return
            }
            try value.encode(to: ValueEncoder(frame: self, index: index))
            if settling, case .frame(let frame) = entries[index].slot {
                let start = bytes.count
                frame.render(into: &bytes)
                entries[index].slot = .bytes(start..<bytes.count)
            }
        }

        func writeSlot(of index: Int, into output: inout [UInt8]) {
            switch entries[index].slot {
            case .empty: output.append(contentsOf: "{}".utf8)
            case .bytes(let range):
                bytes.withUnsafeBufferPointer { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
            case .frame(let frame): frame.render(into: &output)
            }
        }

        func render(into output: inout [UInt8]) {
            switch kind {
            case .array:
                output.append(UInt8(ascii: "["))
                for index in entries.indices {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    writeSlot(of: index, into: &output)
                }
                output.append(UInt8(ascii: "]"))
            case .object:
                output.append(UInt8(ascii: "{"))
                withSortedEntries { order in
                    var position = 0
                    while position < order.count {
                        // Equal keys (a key written twice): the first spelling, the last value,
                        // as a dictionary keeps them.
                        let first = order[position]
                        while position + 1 < order.count, entries[order[position + 1]].key == entries[first].key {
                            position += 1
                        }
                        if first != order[0] { output.append(UInt8(ascii: ",")) }
                        CanonicalJSONWriter.write(entries[first].key, into: &output)
                        output.append(UInt8(ascii: ":"))
                        writeSlot(of: order[position], into: &output)
                        position += 1
                    }
                }
                output.append(UInt8(ascii: "}"))
            }
        }

        /// Entry indices by key, equal keys in the order written (a stable
        /// sort), in temporary storage rather than a new array per object.
        func withSortedEntries(_ body: (UnsafeMutableBufferPointer<Int>) -> Void) {
            withUnsafeTemporaryAllocation(of: Int.self, capacity: entries.count) { buffer in
                var order = buffer
                for index in entries.indices { order.initializeElement(at: index, to: index) }
                if order.count <= 24 {
                    for next in order.indices.dropFirst() {
                        let index = order[next]
                        var position = next
                        while position > 0, entries[index].key < entries[order[position - 1]].key {
                            order[position] = order[position - 1]
                            position -= 1
                        }
                        order[position] = index
                    }
                } else {
                    order.sort { entries[$0].key < entries[$1].key || (entries[$0].key == entries[$1].key && $0 < $1) }
                }
                body(order)
            }
        }
    }

    /// A finished scalar.
    enum Leaf {
        case json(JSONValue)
        case text([UInt8])

        static func double(_ value: Double, style: Style, codingPath: () -> [any CodingKey]) throws -> Leaf {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value,
                    .init(codingPath: codingPath(), debugDescription: "Unable to encode \(value) directly in JSON."))
            }
            switch style {
            case .payload: return .json(Int64(exactly: value).map(JSONValue.integer) ?? .number(value))
            case .foundation: return .text(foundationText(value))
            }
        }

        static func float(_ value: Float, style: Style, codingPath: () -> [any CodingKey]) throws -> Leaf {
            switch style {
            case .payload: return try double(Double("\(value)") ?? .nan, style: style, codingPath: codingPath)
            case .foundation:
                guard value.isFinite else {
                    throw EncodingError.invalidValue(
                        value,
                        .init(
                            codingPath: codingPath(), debugDescription: "Unable to encode \(value) directly in JSON."))
                }
                return .text(foundationText(value))
            }
        }

        static func unsigned<T: UnsignedInteger>(_ value: T, style: Style) -> Leaf {
            switch style {
            case .payload: return .json(JSONValueEncoder.integer(value))
            case .foundation: return .text(Array(String(value).utf8))
            }
        }

        /// `Data`, `URL` and `Decimal`, which Foundation encodes in its own way; nil for anything else.
        static func special<T: Encodable>(_ value: T, style: Style) throws -> Leaf? {
            switch style {
            case .payload: return try JSONValueEncoder.Box.foundationSpecial(value).map(Leaf.json)
            case .foundation:
                guard T.self == Data.self || T.self == URL.self || T.self == Decimal.self else { return nil }
                return .text(foundationText(value))
            }
        }

        /// One value as Foundation's encoder writes it, without the array around it.
        static func foundationText(_ value: some Encodable) -> [UInt8] {
            Array(CanonicalJSON.foundationEncode([value]).dropFirst().dropLast())
        }
    }

    private struct ValueEncoder: Encoder {
        let frame: Frame
        let index: Int
        var codingPath: [any CodingKey] { frame.codingPath(of: index) }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(KeyedContainer<Key>(frame: frame.container(at: index, kind: .object)))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            UnkeyedContainer(frame: frame.container(at: index, kind: .array))
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(frame: frame, index: index)
        }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let frame: Frame
        var codingPath: [any CodingKey] { frame.codingPath }

        private func set(_ value: JSONValue, _ key: Key) { frame.appendLeaf(key: key.stringValue, .json(value)) }
        private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

        mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            frame.appendLeaf(key: key.stringValue, try .double(value, style: frame.style) { path(key) })
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            frame.appendLeaf(key: key.stringValue, try .float(value, style: frame.style) { path(key) })
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            frame.appendLeaf(key: key.stringValue, .unsigned(value, style: frame.style))
        }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            frame.appendLeaf(key: key.stringValue, .unsigned(value, style: frame.style))
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try frame.encode(value, at: frame.appendEntry(key: key.stringValue))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(
                KeyedContainer<NestedKey>(frame: frame.appendContainer(key: key.stringValue, kind: .object)))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            UnkeyedContainer(frame: frame.appendContainer(key: key.stringValue, kind: .array))
        }

        mutating func superEncoder() -> any Encoder {
            ValueEncoder(frame: frame, index: frame.appendEntry(key: "super"))
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(frame: frame, index: frame.appendEntry(key: key.stringValue))
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let frame: Frame
        var codingPath: [any CodingKey] { frame.codingPath }
        var count: Int { frame.entries.count }

        private func add(_ value: JSONValue) { frame.appendLeaf(key: "", .json(value)) }
        private var nextPath: [any CodingKey] { codingPath + [AnyKey(index: count)] }

        mutating func encodeNil() throws { add(.null) }
        mutating func encode(_ value: Bool) throws { add(.bool(value)) }
        mutating func encode(_ value: String) throws { add(.string(value)) }
        mutating func encode(_ value: Double) throws {
            let path = nextPath
            frame.appendLeaf(key: "", try .double(value, style: frame.style) { path })
        }
        mutating func encode(_ value: Float) throws {
            let path = nextPath
            frame.appendLeaf(key: "", try .float(value, style: frame.style) { path })
        }
        mutating func encode(_ value: Int) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { add(.integer(value)) }
        mutating func encode(_ value: UInt) throws { frame.appendLeaf(key: "", .unsigned(value, style: frame.style)) }
        mutating func encode(_ value: UInt8) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { frame.appendLeaf(key: "", .unsigned(value, style: frame.style)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try frame.encode(value, at: frame.appendEntry(key: ""))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(KeyedContainer<NestedKey>(frame: frame.appendContainer(key: "", kind: .object)))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            UnkeyedContainer(frame: frame.appendContainer(key: "", kind: .array))
        }

        mutating func superEncoder() -> any Encoder {
            ValueEncoder(frame: frame, index: frame.appendEntry(key: ""))
        }
    }

    private struct SingleValueContainer: SingleValueEncodingContainer {
        let frame: Frame
        let index: Int
        var codingPath: [any CodingKey] { frame.codingPath(of: index) }

        private func set(_ value: JSONValue) { frame.setLeaf(.json(value), at: index) }

        mutating func encodeNil() throws { set(.null) }
        mutating func encode(_ value: Bool) throws { set(.bool(value)) }
        mutating func encode(_ value: String) throws { set(.string(value)) }
        mutating func encode(_ value: Double) throws {
            frame.setLeaf(try .double(value, style: frame.style) { codingPath }, at: index)
        }
        mutating func encode(_ value: Float) throws {
            frame.setLeaf(try .float(value, style: frame.style) { codingPath }, at: index)
        }
        mutating func encode(_ value: Int) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { set(.integer(value)) }
        mutating func encode(_ value: UInt) throws { frame.setLeaf(.unsigned(value, style: frame.style), at: index) }
        mutating func encode(_ value: UInt8) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { frame.setLeaf(.unsigned(value, style: frame.style), at: index) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            if let special = try Leaf.special(value, style: frame.style) {
                frame.setLeaf(special, at: index)
                return
            }
            try value.encode(to: ValueEncoder(frame: frame, index: index))
        }
    }
}
