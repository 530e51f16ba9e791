/// Reads JSON bytes into a ``JSONValue`` in one pass, without Foundation.
///
/// Every consumed event is parsed here, so this replaces
/// `JSONDecoder().decode(JSONValue.self, ...)`, which went through
/// Foundation's generic `Decodable` machinery (one existential container and
/// several `try?` attempts per value) and dominated a worker's profile. It
/// accepts and produces what that decoder did, so what a worker admits and
/// how it re-encodes an event (and so which signatures verify) do not change:
/// - a leading byte-order mark and trailing commas are tolerated, a repeated
///   key keeps its first value;
/// - a number is ``JSONValue/integer(_:)`` when it is an integer in `Int64`
///   range, written with or without a fraction or exponent (`1.0`, `1e3`),
///   else ``JSONValue/number(_:)``; a number beyond `Double` is an error;
/// - strings must be valid UTF-8 without raw control characters, and escapes
///   must form whole Unicode scalars (no lone surrogates).
/// `JSONParserEquivalenceTests` compares it with Foundation on many inputs.
enum JSONParser {
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// Nesting deeper than this is refused, as Foundation does, so a hostile
    /// event cannot exhaust the stack.
    static let maximumDepth = 512

    static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        try parse(bytes) { (reader: inout Reader) throws(Failure) in try reader.value(depth: 0) }
    }

    static func parse<T>(
        _ bytes: some Collection<UInt8>, _ body: (inout Reader) throws(Failure) -> T
    ) throws(Failure) -> T {
        let result: Result<T, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            parseBuffer(buffer, body)
        }
        switch result ?? Array(bytes).withUnsafeBufferPointer({ parseBuffer($0, body) }) {
        case .success(let value): return value
        case .failure(let failure): throw failure
        }
    }

    /// `body`'s reading of the one JSON value in `buffer` (after an optional byte-order
    /// mark; nothing but whitespace may follow it).
    static func parseBuffer<T>(
        _ buffer: UnsafeBufferPointer<UInt8>, _ body: (inout Reader) throws(Failure) -> T
    ) -> Result<T, Failure> {
        var reader = Reader(bytes: buffer)
        do throws(Failure) {
            if reader.bytes.count >= 3, reader.bytes[0] == 0xEF, reader.bytes[1] == 0xBB, reader.bytes[2] == 0xBF {
                reader.position = 3
            }
            let value = try body(&reader)
            reader.skipWhitespace()
            guard reader.position == reader.bytes.count else { throw reader.failure("unexpected data after the value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        /// The members of the objects being read, innermost last: an object's
        /// dictionary is made once with room for all its members, instead of
        /// growing (and rehashing) as they are read.
        var pending: [(key: String, value: JSONValue)] = []

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func failure(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of input") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("invalid value")
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count,
                UnsafeBufferPointer(rebasing: bytes[position..<position + count]).elementsEqual(
                    UnsafeBufferPointer(start: word.utf8Start, count: count))
            else { throw failure("invalid literal") }
            position += count
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            let start = try members(depth: depth)
            defer { pending.removeSubrange(start...) }
            var members: [String: JSONValue] = .init(minimumCapacity: pending.count - start)
            for (key, member) in pending[start...] {
                // One hash for the usual case: a repeated key keeps its first value.
                if let first = members.updateValue(member, forKey: key) { members[key] = first }
            }
            return .object(members)
        }

        /// Reads an object's members onto ``pending``; returns where they start.
        mutating func members(depth: Int) throws(Failure) -> Int {
            let start = pending.count
            if try enter(depth: depth, closing: UInt8(ascii: "}")) { return start }
            while true {
                let key = try memberKey { (reader: inout Reader) throws(Failure) in try reader.string() }
                pending.append((key, try value(depth: depth)))
                if try closes(with: UInt8(ascii: "}")) { return start }
            }
        }

        /// Checks a value as ``value(depth:)`` reads it, with the same failures, without
        /// building it (strings without escapes are not copied).
        mutating func skipValue(depth: Int) throws(Failure) {
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of input") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                if try enter(depth: depth + 1, closing: UInt8(ascii: "}")) { return }
                while true {
                    try memberKey { (reader: inout Reader) throws(Failure) in try reader.skipString() }
                    try skipValue(depth: depth + 1)
                    if try closes(with: UInt8(ascii: "}")) { return }
                }
            case UInt8(ascii: "["):
                if try enter(depth: depth + 1, closing: UInt8(ascii: "]")) { return }
                while true {
                    try skipValue(depth: depth + 1)
                    if try closes(with: UInt8(ascii: "]")) { return }
                }
            case UInt8(ascii: "\""): try skipString()
            default: _ = try value(depth: depth)  // a literal or a number: nothing to build
            }
        }

        /// Checks a string as ``string()`` reads it; one with escapes is read by it.
        mutating func skipString() throws(Failure) {
            let opening = position
            if let plain = try plainString() {
                if !plain.isASCII { _ = try utf8(plain.contents) }
                position += 1
                return
            }
            position = opening
            _ = try string()
        }

        /// Scans a string from its opening quote to its closing one (left there) when it has
        /// no escapes: where its contents are, and whether they are ASCII (then they need no
        /// UTF-8 validation); nil at a backslash (left there). Every byte is OR-ed on the way.
        mutating func plainString() throws(Failure) -> (contents: Range<Int>, isASCII: Bool)? {
            position += 1
            let start = position
            // Whole words first: a word that may hold the end is read byte by byte below.
            var seen: UInt64 = 0
            position = StringBytesScan.skipPlainWords(bytes, from: position, seen: &seen)
            var bits: UInt8 = StringBytesScan.hasNonASCII(seen) ? 0x80 : 0
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") { return (start..<position, bits < 0x80) }
                bits |= byte
                if byte == UInt8(ascii: "\\") { return nil }
                guard byte >= 0x20 else { throw failure("unescaped control character") }
                position += 1
            }
            throw failure("unterminated string")
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            if try enter(depth: depth, closing: UInt8(ascii: "]")) { return .array([]) }
            var elements: [JSONValue] = []
            while true {
                elements.append(try value(depth: depth))
                if try closes(with: UInt8(ascii: "]")) { return .array(elements) }
            }
        }

        /// Steps into the object or array at `position`, nested `depth` deep (refused past
        /// ``JSONParser/maximumDepth``); true when it is empty (`closing` follows, consumed).
        mutating func enter(depth: Int, closing: UInt8) throws(Failure) -> Bool {
            guard depth <= JSONParser.maximumDepth else { throw failure("too deeply nested") }
            position += 1
            skipWhitespace()
            guard position < bytes.count, bytes[position] == closing else { return false }
            position += 1
            return true
        }

        /// A member's key, read by `read` (``string()``, or ``skipString()`` to check it only),
        /// and its colon.
        mutating func memberKey<Key>(_ read: (inout Reader) throws(Failure) -> Key) throws(Failure) -> Key {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try read(&self)
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected :") }
            position += 1
            return key
        }

        /// After a member or element: true when the container ends here (`closing`, or a
        /// trailing comma before it, which Foundation accepts too), false after a comma.
        mutating func closes(with closing: UInt8) throws(Failure) -> Bool {
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of input") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                guard position < bytes.count, bytes[position] == closing else { return false }
                position += 1
                return true
            case closing:
                position += 1
                return true
            default:
                throw failure("expected , or \(Character(Unicode.Scalar(closing)))")
            }
        }

        /// A string starting at the opening quote. Strings without escapes
        /// (nearly all) are validated and copied in one step.
        mutating func string() throws(Failure) -> String {
            let start = position + 1
            // The generic validating initializer was a tenth of decoding an event: ASCII skips it.
            if let plain = try plainString() {
                let text = plain.isASCII ? ascii(plain.contents) : try utf8(plain.contents)
                position += 1
                return text
            }
            var decoded = Array(bytes[start..<position])
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    guard let text = String(validating: decoded, as: UTF8.self) else {
                        throw failure("invalid UTF-8")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { throw failure("unexpected end of input") }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "u"): decoded.append(contentsOf: try unicodeEscape().utf8)
                    default: throw failure("invalid escape")
                    }
                default:
                    guard byte >= 0x20 else { throw failure("unescaped control character") }
                    decoded.append(byte)
                    position += 1
                }
            }
            throw failure("unterminated string")
        }

        /// Bytes known to be ASCII, as a string.
        func ascii(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        func utf8(_ range: Range<Int>) throws(Failure) -> String {
            guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
                throw failure("invalid UTF-8")
            }
            return text
        }

        /// The scalar of `\uXXXX` (after the `u`), or of a surrogate pair `\uD83D\uDE00`.
        mutating func unicodeEscape() throws(Failure) -> String {
            let first = try hexQuad()
            if (0xD800..<0xDC00).contains(first) {
                guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw failure("lone surrogate") }
                position += 2
                let second = try hexQuad()
                guard (0xDC00..<0xE000).contains(second) else { throw failure("lone surrogate") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw failure("invalid escape") }
                return String(Character(scalar))
            }
            guard let scalar = Unicode.Scalar(first) else { throw failure("lone surrogate") }
            return String(Character(scalar))
        }

        mutating func hexQuad() throws(Failure) -> UInt32 {
            guard bytes.count - position >= 4 else { throw failure("unexpected end of input") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        /// RFC 8259 number grammar; integers without fraction or exponent are
        /// read exactly, anything else through `Double`.
        mutating func number() throws(Failure) -> JSONValue {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("invalid number") }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if position < bytes.count, isDigit(bytes[position]) { throw failure("number with leading zero") }
            } else {
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            var integral = true
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                integral = false
                position += 1
                guard position < bytes.count, isDigit(bytes[position]) else { throw failure("invalid number") }
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                integral = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard position < bytes.count, isDigit(bytes[position]) else { throw failure("invalid number") }
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
            if integral, let value = Self.int64(text) { return .integer(value) }
            guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
                throw failure("number out of range")
            }
            if let exact = Int64(exactly: value) { return .integer(exact) }
            return .number(value)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        /// Digits with an optional minus, or nil when beyond `Int64`.
        static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
            let negative = text.first == UInt8(ascii: "-")
            var value: Int64 = 0
            for byte in text.dropFirst(negative ? 1 : 0) {
                let digit = Int64(byte - UInt8(ascii: "0"))
                let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                let (next, overflowed) =
                    negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                guard !overflowed else { return nil }
                value = next
            }
            return value
        }
    }
}

/// Reads JSON bytes straight into a decoder's types (``JSONReading``), building no
/// ``JSONValue`` tree: strings are read as ``JSONParser`` reads them, and anything the
/// decoder does not expect is refused. Used within ``read(_:_:)`` only (it reads the
/// array's storage in place).
public struct JSONBytesReader: JSONReading {
    fileprivate var reader: JSONParser.Reader

    /// `body`'s reading of `bytes`, which must be one JSON value with nothing after it
    /// but whitespace; nil when `body` refuses it or the bytes are not that.
    public static func read<T>(_ bytes: [UInt8], _ body: (inout JSONBytesReader) throws(JSONRefusal) -> T) -> T? {
        read(bytes[...], body)
    }

    /// ``read(_:_:)`` of a slice (a received event's `data`, in place in the record's bytes).
    public static func read<T>(_ bytes: ArraySlice<UInt8>, _ body: (inout JSONBytesReader) throws(JSONRefusal) -> T)
        -> T?
    {
        bytes.withUnsafeBufferPointer { buffer -> T? in
            var cursor = JSONBytesReader(reader: JSONParser.Reader(bytes: buffer))
            do throws(JSONRefusal) {
                let value = try body(&cursor)
                cursor.reader.skipWhitespace()
                return cursor.reader.position == buffer.count ? value : nil
            } catch {
                return nil
            }
        }
    }

    /// The next byte after whitespace, consumed when it is `expected`.
    private mutating func take(_ expected: UInt8) -> Bool {
        reader.skipWhitespace()
        guard reader.position < reader.bytes.count, reader.bytes[reader.position] == expected else { return false }
        reader.position += 1
        return true
    }

    public mutating func readObject(_ member: (String, inout JSONBytesReader) throws(JSONRefusal) -> Void)
        throws(JSONRefusal)
    {
        guard take(UInt8(ascii: "{")) else { throw JSONRefusal() }
        if take(UInt8(ascii: "}")) { return }
        while true {
            let key: String
            do {
                key = try reader.memberKey { (reader: inout JSONParser.Reader) throws(JSONParser.Failure) in
                    try reader.string()
                }
            } catch {
                throw JSONRefusal()
            }
            try member(key, &self)
            do { if try reader.closes(with: UInt8(ascii: "}")) { return } } catch { throw JSONRefusal() }
        }
    }

    public mutating func readArray(_ element: (inout JSONBytesReader) throws(JSONRefusal) -> Void)
        throws(JSONRefusal)
    {
        guard take(UInt8(ascii: "[")) else { throw JSONRefusal() }
        if take(UInt8(ascii: "]")) { return }
        while true {
            try element(&self)
            do { if try reader.closes(with: UInt8(ascii: "]")) { return } } catch { throw JSONRefusal() }
        }
    }

    public mutating func readString() throws(JSONRefusal) -> String {
        reader.skipWhitespace()
        guard reader.position < reader.bytes.count, reader.bytes[reader.position] == UInt8(ascii: "\"") else {
            throw JSONRefusal()
        }
        do { return try reader.string() } catch { throw JSONRefusal() }
    }

    public mutating func readBool() throws(JSONRefusal) -> Bool {
        reader.skipWhitespace()
        guard reader.position < reader.bytes.count else { throw JSONRefusal() }
        do {
            switch reader.bytes[reader.position] {
            case UInt8(ascii: "t"):
                try reader.literal("true")
                return true
            case UInt8(ascii: "f"):
                try reader.literal("false")
                return false
            default: throw JSONRefusal()
            }
        } catch {
            throw JSONRefusal()
        }
    }

    /// Read by the parser's own number grammar, so bytes and parsed JSON agree on what is an integer.
    public mutating func readInteger() throws(JSONRefusal) -> Int64 {
        reader.skipWhitespace()
        guard reader.position < reader.bytes.count else { throw JSONRefusal() }
        let byte = reader.bytes[reader.position]
        guard byte == UInt8(ascii: "-") || reader.isDigit(byte) else { throw JSONRefusal() }
        do {
            guard case .integer(let number) = try reader.number() else { throw JSONRefusal() }
            return number
        } catch {
            throw JSONRefusal()
        }
    }
}
