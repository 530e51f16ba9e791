public import Foundation

/// The envelope every event on every topic travels in: CloudEvents 1.0
/// attributes (structured JSON mode) plus this pipeline's extension
/// attributes, which let any consumer route, de-duplicate and trace an event
/// without understanding its payload.
///
/// The JSON Schema is `schemas/envelope/v1.json`; tests check that what this
/// type encodes validates against it.
public struct EventEnvelope: Sendable, Hashable {
    public static let specVersion = "1.0"
    public static let contentType = "application/json"
    /// Events larger than this are rejected before parsing.
    public static let defaultMaximumBytes = 256 * 1024
    /// The longest identifier attribute (`id`, `source`, `userid`, `conversationid`, ...) a
    /// reader takes, in UTF-8 bytes; a writer deriving one from longer text must shorten it.
    public static let maximumIdentifierLength = 256

    /// Unique per event; deterministic where the event is derived from another, so redeliveries collide.
    public var id: String
    /// Who produced it, as a URI reference (e.g. `/voice/eu-1`, `/workers/resolve`).
    public var source: String
    /// Reverse-DNS event type with a version, e.g. `intent.message.send.requested.v1`.
    public var type: String
    public var time: Date
    /// What the event is about (e.g. the intent id), for filtering without parsing `data`.
    public var subject: String?
    /// URI of the JSON Schema of `data`.
    public var dataSchema: String?
    /// Partition key: every event of a user is ordered on one partition.
    public var userID: String
    public var conversationID: String
    public var intentID: String?
    /// The id of the event that caused this one; nil for events from outside the pipeline.
    public var causationID: String?
    /// CloudEvents extension attributes this pipeline does not interpret
    /// (`traceparent`, `partitionkey`, a voice service's own), by name:
    /// accepted when valid (``ExtensionAttributes``), signed with the rest of
    /// the event, and carried to every event derived from it.
    public var extensions: ExtensionAttributes = ExtensionAttributes()
    public var data: JSONValue {
        get { body.value }
        set { body = .value(newValue) }
    }
    /// `data` as held: an envelope built from a payload keeps the payload's
    /// canonical bytes, which ``encoded()`` splices in.
    private var body: EventData

    public init(
        id: String, source: String, type: String, time: Date, subject: String? = nil, dataSchema: String? = nil,
        userID: String, conversationID: String, intentID: String? = nil, causationID: String? = nil,
        data: JSONValue, extensions: ExtensionAttributes = ExtensionAttributes()
    ) {
        self.extensions = extensions
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.subject = subject
        self.dataSchema = dataSchema
        self.userID = userID
        self.conversationID = conversationID
        self.intentID = intentID
        self.causationID = causationID
        self.body = .value(data)
    }

    /// Attribute names as they appear on the wire.
    enum Attribute: String, CaseIterable {
        case specversion, id, source, type, time, subject, datacontenttype, dataschema
        case userid, conversationid, intentid, causationid, data

        /// The attribute a member's name is: looked up by its bytes among the names of its
        /// length, where `init(rawValue:)` compared it with every name in turn (a tenth of
        /// reading an envelope).
        static func named(_ name: String) -> Attribute? {
            var name = name
            return name.withUTF8 { named($0) }
        }

        /// ``named(_:)`` of a member's name as its UTF-8 bytes, read from a record without
        /// making a string of it.
        static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> Attribute? {
            guard let position = byBytes.position(of: bytes) else { return nil }
            return cases[position]
        }

        /// `allCases` is made anew on every use: kept once, in the order ``byBytes`` counts.
        private static let cases = allCases
        private static let byBytes = BytesLookup(cases.map(\.rawValue))
    }

    // MARK: Encoding

    /// Canonical JSON: sorted keys, RFC 3339 time with milliseconds, no escaped slashes.
    /// Written attribute by attribute (in ``sortedAttributes`` order) without
    /// building an object first: every published and every verified event
    /// is encoded here. The bytes are those of ``CanonicalJSON`` over the
    /// envelope as one JSON object (`CanonicalJSONEquivalenceTests`).
    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(body.byteCount + 640)
        output.append(UInt8(ascii: "{"))
        // The members themselves, not ``ExtensionAttributes/sorted`` (an array per event).
        let members = extensions.members
        var pending = 0
        for (attribute, key) in Self.sortedKeys {
            // Extension names never equal an attribute's, so each goes before the first larger one.
            while pending < members.count, members[pending].name < attribute.rawValue {
                Self.write(extension: members[pending], into: &output)
                pending += 1
            }
            let text: String?
            switch attribute {
            case .specversion: text = Self.specVersion
            case .id: text = id
            case .source: text = source
            case .type: text = type
            case .time:
                Self.append(key, to: &output)
                // An RFC 3339 time has nothing to escape: written in place, not as a string first.
                output.append(UInt8(ascii: "\""))
                EventTime.write(time, into: &output)
                output.append(UInt8(ascii: "\""))
                continue
            case .subject: text = subject
            case .datacontenttype: text = Self.contentType
            case .dataschema: text = dataSchema
            case .userid: text = userID
            case .conversationid: text = conversationID
            case .intentid: text = intentID
            case .causationid: text = causationID
            case .data:
                Self.append(key, to: &output)
                body.write(into: &output)
                continue
            }
            guard let text else { continue }
            Self.append(key, to: &output)
            CanonicalJSONWriter.write(text, into: &output)
        }
        for member in members[pending...] { Self.write(extension: member, into: &output) }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// `,"name":` (no comma after the opening brace), from the name's bytes written once.
    private static func append(_ key: [UInt8], to output: inout [UInt8]) {
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        output.append(contentsOf: key)
    }

    private static func write(extension member: ExtensionAttributes.Member, into output: inout [UInt8]) {
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        CanonicalJSONWriter.write(member.name, into: &output)
        output.append(UInt8(ascii: ":"))
        CanonicalJSONWriter.write(member.value, into: &output)
    }

    /// The attributes in the order canonical JSON writes them (keys sorted).
    static let sortedAttributes = Attribute.allCases.sorted { $0.rawValue < $1.rawValue }

    /// Each of ``sortedAttributes`` with its name as a JSON key, `"name":`: written through the
    /// escaping writer once here rather than for every attribute of every encoded event.
    static let sortedKeys: [(attribute: Attribute, key: [UInt8])] = sortedAttributes.map { attribute in
        var key: [UInt8] = []
        CanonicalJSONWriter.write(attribute.rawValue, into: &key)
        key.append(UInt8(ascii: ":"))
        return (attribute, key)
    }

    /// The envelope as one JSON object, encoded through Foundation: the
    /// reference ``encoded()`` is tested against.
    func foundationEncoded() -> [UInt8] {
        var object: [String: JSONValue] = [
            Attribute.specversion.rawValue: .string(Self.specVersion),
            Attribute.id.rawValue: .string(id),
            Attribute.source.rawValue: .string(source),
            Attribute.type.rawValue: .string(type),
            Attribute.time.rawValue: .string(EventTime.format(time)),
            Attribute.datacontenttype.rawValue: .string(Self.contentType),
            Attribute.userid.rawValue: .string(userID),
            Attribute.conversationid.rawValue: .string(conversationID),
            Attribute.data.rawValue: data,
        ]
        object[Attribute.subject.rawValue] = subject.map(JSONValue.string)
        object[Attribute.dataschema.rawValue] = dataSchema.map(JSONValue.string)
        object[Attribute.intentid.rawValue] = intentID.map(JSONValue.string)
        object[Attribute.causationid.rawValue] = causationID.map(JSONValue.string)
        for (name, value) in extensions.sorted { object[name] = value }
        return CanonicalJSON.foundationEncode(JSONValue.object(object))
    }

    // MARK: Strict decoding

    /// Decodes an envelope, rejecting anything not exactly as specified:
    /// oversized input, invalid JSON, missing or unknown attributes, wrong
    /// types, empty identifiers, another spec version, or an unparseable time.
    ///
    /// `deferringData` (the default): `data` is checked as JSON (what is refused is the same)
    /// but kept as its bytes (a slice of `bytes`, not a copy), for a reader that decodes them
    /// straight into its types (``readData(_:_:)``, ``decodeData(as:)``) rather than build a
    /// tree it would read once. Reading ``data`` then parses them each time; `false` builds
    /// the tree once, for a reader that looks into `data` more than once.
    public static func decode(
        _ bytes: [UInt8], maximumBytes: Int = defaultMaximumBytes, deferringData: Bool = true
    ) throws(EventDecodingError) -> EventEnvelope {
        guard bytes.count <= maximumBytes else {
            throw EventDecodingError(.oversized, "event is \(bytes.count) bytes; the limit is \(maximumBytes)")
        }
        let read = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParser.Failure) in try JSONParser.readEnvelope(buffer, deferringData: deferringData)
            }
        }
        let members: EnvelopeMembers
        switch read {
        case .failure(let error): throw EventDecodingError(.unparseable, "not valid JSON: \(error)")
        case .success(.value(let value)):
            throw EventDecodingError(.unparseable, "expected a JSON object, got \(value.typeName)")
        case .success(.members(let read)): members = read
        }
        let extensions = try ExtensionAttributes(validating: members.others)
        let reader = AttributeReader(attributes: members)
        let specVersion = try reader.string(.specversion)
        guard specVersion == Self.specVersion else {
            throw EventDecodingError(
                .unsupportedSpecVersion, field: "$.specversion", "expected 1.0, got \(specVersion)")
        }
        if let contentType = try reader.optionalString(.datacontenttype), contentType != Self.contentType {
            throw EventDecodingError(
                .schemaInvalid, field: "$.datacontenttype", "expected \(Self.contentType), got \(contentType)")
        }
        let time: Date
        if let parsed = members.parsedTime {
            time = EventTime.date(milliseconds: parsed.milliseconds)
        } else {
            let timeText = try reader.string(.time)
            guard let parsed = EventTime.parse(timeText) else {
                throw EventDecodingError(.schemaInvalid, field: "$.time", "not an RFC 3339 timestamp: \(timeText)")
            }
            time = parsed
        }
        let body: EventData
        if let deferred = members.deferredData {
            body = .received(bytes[deferred])
        } else if let data = members[.data] {
            body = .value(data)
        } else {
            throw EventDecodingError(.schemaInvalid, field: "$.data", "required attribute missing")
        }
        let userID = try reader.identifier(.userid)
        // Swift compares strings by canonical equivalence, Kafka partitions by bytes: a user id
        // spelled two ways ("K" and the Kelvin sign) would be one account with two partitions,
        // so two workers deciding for it. Only the NFC spelling is accepted.
        if !userID.utf8.allSatisfy({ $0 < 0x80 }),
            !userID.utf8.elementsEqual(userID.precomposedStringWithCanonicalMapping.utf8)
        {
            throw EventDecodingError(
                .schemaInvalid, field: "$.userid", "the user id must be in Unicode normalization form C (NFC)")
        }
        var envelope = EventEnvelope(
            id: try reader.identifier(.id),
            source: try reader.identifier(.source),
            type: try reader.identifier(.type),
            time: time,
            subject: try reader.optionalString(.subject),
            dataSchema: try reader.optionalString(.dataschema),
            userID: userID,
            conversationID: try reader.identifier(.conversationid),
            intentID: try reader.optionalIdentifier(.intentid),
            causationID: try reader.optionalIdentifier(.causationid),
            data: .null, extensions: extensions)
        envelope.body = body
        return envelope
    }

    /// ``decode(_:maximumBytes:deferringData:)`` for bytes of another collection (copied once).
    public static func decode(
        _ bytes: some Collection<UInt8>, maximumBytes: Int = defaultMaximumBytes, deferringData: Bool = true
    ) throws(EventDecodingError) -> EventEnvelope {
        guard bytes.count <= maximumBytes else {
            throw EventDecodingError(.oversized, "event is \(bytes.count) bytes; the limit is \(maximumBytes)")
        }
        return try decode(Array(bytes), maximumBytes: maximumBytes, deferringData: deferringData)
    }

    /// `data` decoded by a ``JSONReading`` decoder: from its bytes when the envelope holds
    /// them (decoded with deferred data, or built from a payload), else from its JSON value;
    /// nil when the decoder refuses it. Two closures, so each reads a concrete reader.
    public func readData<T>(
        _ fromBytes: (inout JSONBytesReader) throws(JSONRefusal) -> T,
        _ fromValue: (inout JSONValueReader) throws(JSONRefusal) -> T
    ) -> T? {
        switch body {
        case .received(let bytes): JSONBytesReader.read(bytes, fromBytes)
        case .canonical(let bytes): JSONBytesReader.read(bytes[...], fromBytes)
        case .value(let value): JSONValueReader.read(value, fromValue)
        }
    }

    /// Decodes `data` as a typed payload, strictly: a missing, mistyped or
    /// unknown field is `schema_invalid`, with the field's path.
    ///
    /// When the decoding read every member and element of `data` exactly once
    /// (nearly every event), no field is unknown: every payload type writes
    /// back every field it reads (synthesized `Codable` does, and so does every
    /// hand-written conformance here), so re-encoding could not lack one. Only
    /// otherwise is the payload re-encoded and compared (``StrictDecoding``),
    /// which names the first unknown field as it always did; a field present
    /// as `null` where the payload has an optional is unknown there, since the
    /// re-encoding drops it. `StrictDecodingEquivalenceTests` compares both.
    public func decodeData<Payload: Codable>(as type: Payload.Type) throws(EventDecodingError) -> Payload {
        if let direct = Payload.self as? any DirectlyReadPayload.Type, let payload = readDirectly(direct) {
            // The same value the path below returns (``DirectlyReadPayload``), without its containers.
            return payload as! Payload
        }
        return try decodeDataByCodable(as: type)
    }

    /// ``decodeData(as:)`` for a payload known to read itself directly (what the stages
    /// read per record): the same value or error, without a dynamic cast to find its reader.
    public func decodeData<Payload: DirectlyReadPayload>(as type: Payload.Type) throws(EventDecodingError) -> Payload {
        if let payload = readDirectly(type) { return payload }
        return try decodeDataByCodable(as: type)
    }

    /// Strict `Codable` decoding of `data` (see ``decodeData(as:)``).
    private func decodeDataByCodable<Payload: Codable>(as type: Payload.Type) throws(EventDecodingError) -> Payload {
        let data = self.data
        let decoded: (value: Payload, readEverything: Bool)
        do {
            decoded = try JSONValueDecoder.decodeReadingEverything(Payload.self, from: data)
        } catch {
            throw EventDecodingError(.schemaInvalid, field: "$.data", describe(error))
        }
        if !decoded.readEverything { try Self.checkNoUnknownField(in: data, reencoding: decoded.value) }
        return decoded.value
    }

    /// The reference strict decoding: decode, re-encode, compare keys.
    static func decodeDataByReencoding<Payload: Codable>(_ data: JSONValue, as type: Payload.Type)
        throws(EventDecodingError) -> Payload
    {
        let payload: Payload
        do {
            payload = try JSONValueDecoder.decode(Payload.self, from: data)
        } catch {
            throw EventDecodingError(.schemaInvalid, field: "$.data", describe(error))
        }
        try checkNoUnknownField(in: data, reencoding: payload)
        return payload
    }

    /// Throws for the first field of `data` that `payload`, re-encoded, lacks.
    static func checkNoUnknownField(in data: JSONValue, reencoding payload: some Encodable) throws(EventDecodingError) {
        let reencoded: JSONValue
        do {
            reencoded = try JSONValueEncoder.encode(payload)
        } catch {
            throw EventDecodingError(.schemaInvalid, field: "$.data", describe(error))
        }
        if let unknown = StrictDecoding.firstUnknownField(original: data, reencoded: reencoded, path: "$.data") {
            throw EventDecodingError(.schemaInvalid, field: unknown, "unknown field")
        }
    }

    /// An envelope around a typed payload, encoded straight to its canonical
    /// bytes (the bytes of `JSONValue(encoding: payload)` written canonically).
    ///
    /// Inlinable so that the cast below is decided where the payload's type is known: at
    /// a call with a concrete payload the optimizer folds it, so a payload that writes its
    /// own canonical JSON (``CanonicalPayload``) costs no run-time conformance look-up (a
    /// lock and a cache per published record when it was made here, in every worker). The
    /// cast is of the type, not the value: a value cast to `any CanonicalPayload` would be
    /// boxed, an allocation per record for every payload wider than three words.
    @inlinable
    public init(
        id: String, source: String, type: String, time: Date, subject: String? = nil, dataSchema: String? = nil,
        userID: String, conversationID: String, intentID: String? = nil, causationID: String? = nil,
        payload: some Encodable
    ) {
        self.init(
            id: id, source: source, type: type, time: time, subject: subject, dataSchema: dataSchema, userID: userID,
            conversationID: conversationID, intentID: intentID, causationID: causationID, data: .null)
        if let writer = Swift.type(of: payload) as? any CanonicalPayload.Type {
            setBody(writing: payload, as: writer)
        } else {
            setBody(encoding: payload)
        }
    }

    /// `data` as the canonical bytes `payload` writes itself; `writer` is its own type.
    @usableFromInline
    mutating func setBody<Payload, Writer: CanonicalPayload>(writing payload: Payload, as writer: Writer.Type) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        // The same type, so the cast is the run time's identity case (no conformance look-up).
        (payload as! Writer).writeCanonicalJSON(into: &bytes)
        body = .canonical(bytes)
    }

    /// `data` as the canonical bytes of `payload` through its `Encodable` conformance.
    @usableFromInline
    mutating func setBody(encoding payload: some Encodable) {
        // Encoding the pipeline's payload types cannot fail: they hold only
        // strings, finite numbers, booleans, arrays and objects.
        guard let bytes = try? CanonicalEncoder.encode(payload, style: .payload) else {
            preconditionFailure("encoding \(Swift.type(of: payload)) as JSON failed")
        }
        body = .canonical(bytes)
    }
}

/// Reads envelope attributes with precise errors.
private struct AttributeReader {
    let attributes: EnvelopeMembers

    func optionalString(_ attribute: EventEnvelope.Attribute) throws(EventDecodingError) -> String? {
        switch attributes[attribute] {
        case .none, .null?: return nil
        case .string(let value)?: return value
        case let other?:
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(attribute.rawValue)", "expected a string, got \(other.typeName)")
        }
    }

    func string(_ attribute: EventEnvelope.Attribute) throws(EventDecodingError) -> String {
        guard let value = try optionalString(attribute) else {
            throw EventDecodingError(.schemaInvalid, field: "$.\(attribute.rawValue)", "required attribute missing")
        }
        return value
    }

    func optionalIdentifier(_ attribute: EventEnvelope.Attribute) throws(EventDecodingError) -> String? {
        guard let value = try optionalString(attribute) else { return nil }
        guard !value.isEmpty, value.utf8.count <= EventEnvelope.maximumIdentifierLength else {
            throw EventDecodingError(
                .schemaInvalid, field: "$.\(attribute.rawValue)",
                "must be 1 to \(EventEnvelope.maximumIdentifierLength) bytes, got \(value.utf8.count)")
        }
        return value
    }

    func identifier(_ attribute: EventEnvelope.Attribute) throws(EventDecodingError) -> String {
        guard let value = try optionalIdentifier(attribute) else {
            throw EventDecodingError(.schemaInvalid, field: "$.\(attribute.rawValue)", "required attribute missing")
        }
        return value
    }
}

/// A readable one-line account of a Foundation decoding error.
func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        "$" + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue): required field missing"
    case .typeMismatch(_, let context): return "\(path(context)): \(context.debugDescription)"
    case .valueNotFound(_, let context): return "\(path(context)): \(context.debugDescription)"
    case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
}
