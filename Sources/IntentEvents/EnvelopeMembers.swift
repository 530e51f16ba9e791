/// An envelope's top-level object as read straight from a record's bytes
/// (``JSONParser/readEnvelope(_:deferringData:)``): each attribute's value by
/// name, the other members (extension attributes, still to be validated), and
/// where `data` is when it is kept as bytes. No dictionary, no list of members
/// and no `JSONValue` tree of `data` is built: every record a worker reads is
/// decoded here, and those were a fifth of a stage's decision path.
struct EnvelopeMembers {
    /// Each attribute's value, a repeated name keeping its first (as the parser's objects do).
    private var specversion, id, source, type, time, subject, datacontenttype, dataschema: JSONValue?
    private var userid, conversationid, intentid, causationid, data: JSONValue?
    /// The members that are not attributes, in the order written (a repeated name again).
    var others: [(key: String, value: JSONValue)] = []
    /// Where the first `data` member's value is in the bytes read, when it was deferred:
    /// checked as parsing it would be, not built.
    var deferredData: Range<Int>?
    /// The first `time` member, when it is a time exactly as events write it: its instant
    /// in milliseconds, read from the bytes (where its text is), in place of a `time`
    /// value (``subscript(attribute:)`` then has none).
    var parsedTime: (milliseconds: Int64, text: Range<Int>)?

    /// A stored property per attribute rather than an array: reading an envelope allocates
    /// nothing for its attributes, and a switch costs no key path or index lookup.
    subscript(attribute: EventEnvelope.Attribute) -> JSONValue? {
        get {
            switch attribute {
            case .specversion: specversion
            case .id: id
            case .source: source
            case .type: type
            case .time: time
            case .subject: subject
            case .datacontenttype: datacontenttype
            case .dataschema: dataschema
            case .userid: userid
            case .conversationid: conversationid
            case .intentid: intentid
            case .causationid: causationid
            case .data: data
            }
        }
        set {
            switch attribute {
            case .specversion: specversion = newValue
            case .id: id = newValue
            case .source: source = newValue
            case .type: type = newValue
            case .time: time = newValue
            case .subject: subject = newValue
            case .datacontenttype: datacontenttype = newValue
            case .dataschema: dataschema = newValue
            case .userid: userid = newValue
            case .conversationid: conversationid = newValue
            case .intentid: intentid = newValue
            case .causationid: causationid = newValue
            case .data: data = newValue
            }
        }
    }

    /// Keeps `value` for `attribute` unless it already has one (a repeated name keeps its first).
    mutating func keepFirst(_ value: JSONValue, for attribute: EventEnvelope.Attribute) {
        guard attribute != .time || parsedTime == nil else { return }
        if case .none = self[attribute] { self[attribute] = value }
    }
}

extension JSONParser {
    /// A document as an envelope reads it: a top-level object's members, or any other value.
    enum Envelope {
        case members(EnvelopeMembers)
        case value(JSONValue)
    }

    /// Reads what ``parse(_:)`` reads and refuses what it refuses, with the same failures,
    /// in one pass over `buffer`. With `deferringData`, the value of the top-level `data`
    /// member is checked (accepted and refused exactly as parsing it would be) but not
    /// built: where it is goes to ``EnvelopeMembers/deferredData``, so a reader that
    /// decodes those bytes straight into its own type (``JSONBytesReader``) builds no tree.
    static func readEnvelope(_ buffer: UnsafeBufferPointer<UInt8>, deferringData: Bool) throws(Failure) -> Envelope {
        let read = parseBuffer(buffer) { (reader: inout Reader) throws(Failure) in
            try reader.envelope(deferringData: deferringData)
        }
        switch read {
        case .success(let envelope): return envelope
        case .failure(let failure): throw failure
        }
    }
}

extension JSONParser.Reader {
    /// The top-level value as ``JSONParser/readEnvelope(_:deferringData:)`` reads it: the
    /// steps ``value(depth:)`` takes for an object, in the same order, so failures match.
    mutating func envelope(deferringData: Bool) throws(JSONParser.Failure) -> JSONParser.Envelope {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return .value(try value(depth: 0)) }
        var members = EnvelopeMembers()
        if try enter(depth: 1, closing: UInt8(ascii: "}")) { return .members(members) }
        while true {
            switch try memberKey({ (reader: inout Self) throws(JSONParser.Failure) in try reader.memberName() }) {
            case .attribute(.data) where deferringData:
                skipWhitespace()
                let start = position
                try skipValue(depth: 1)
                if members.deferredData == nil { members.deferredData = start..<position }
            case .attribute(.time) where members[.time] == nil && members.parsedTime == nil:
                if let time = try plainTime() {
                    members.parsedTime = time
                } else {
                    members.keepFirst(try value(depth: 1), for: .time)
                }
            case .attribute(let attribute):
                members.keepFirst(try attributeValue(), for: attribute)
            case .other(let key):
                members.others.append((key, try value(depth: 1)))
            }
            if try closes(with: UInt8(ascii: "}")) { return .members(members) }
        }
    }

    /// A top-level member's name: an attribute, or another member's name as a string.
    enum MemberName {
        case attribute(EventEnvelope.Attribute)
        case other(String)
    }

    /// The name at `position` as ``string()`` reads it (the same failures), matched against
    /// the attributes' names from its bytes when it is plain ASCII: no string is made
    /// for an attribute's name.
    mutating func memberName() throws(JSONParser.Failure) -> MemberName {
        if let contents = try plainASCIIString() {
            guard let attribute = EventEnvelope.Attribute.named(UnsafeBufferPointer(rebasing: bytes[contents])) else {
                return .other(ascii(contents))
            }
            return .attribute(attribute)
        }
        let name = try string()
        return EventEnvelope.Attribute.named(name).map { .attribute($0) } ?? .other(name)
    }

    /// An attribute's value as ``value(depth:)`` reads it (the same failures): a plain ASCII
    /// string among ``WellKnownAttributeValues`` is that shared string, not a new one.
    mutating func attributeValue() throws(JSONParser.Failure) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let contents = try plainASCIIString()
        else { return try value(depth: 1) }
        return .string(
            WellKnownAttributeValues.value(UnsafeBufferPointer(rebasing: bytes[contents])) ?? ascii(contents))
    }

    /// A `time` value that is a time exactly as events write it (``EventTime/civilParse(_:)``),
    /// read from its bytes; nil, with nothing read, for any other value.
    mutating func plainTime() throws(JSONParser.Failure) -> (milliseconds: Int64, text: Range<Int>)? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let opening = position
        guard let contents = try plainASCIIString(),
            let milliseconds = EventTime.civilParse(UnsafeBufferPointer(rebasing: bytes[contents]))
        else {
            position = opening
            return nil
        }
        return (milliseconds, contents)
    }

    /// At an opening quote: where the contents of a string without escapes and all in ASCII
    /// are, read past its closing quote; nil, with nothing read, for any other string. The
    /// three readers above take such strings from the bytes and leave the rest to the
    /// general path; a string that cannot be read fails here as ``string()`` would fail.
    private mutating func plainASCIIString() throws(JSONParser.Failure) -> Range<Int>? {
        let opening = position
        guard let plain = try plainString(), plain.isASCII else {
            position = opening
            return nil
        }
        position += 1
        return plain.contents
    }
}
