import Foundation

/// An event as the CloudEvents Kafka binding's binary mode carries it: every
/// attribute in a `ce_<name>` header, the data's media type in `content-type`,
/// and the data itself as the record value. It is checked by the same strict
/// rules as a structured event, by assembling the structured event and
/// decoding that, so both modes admit exactly the same events and a
/// signature covers the same canonical bytes whichever mode carried it.
public enum BinaryModeEvent {
    /// The record value is the data; its content type must be JSON.
    public static func decode(
        attributes: [(name: String, value: String)], contentType: String?, data: [UInt8]?,
        maximumBytes: Int = EventEnvelope.defaultMaximumBytes
    ) throws(EventDecodingError) -> EventEnvelope {
        let size = (data?.count ?? 0) + attributes.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        guard size <= maximumBytes else {
            throw EventDecodingError(.oversized, "event is \(size) bytes; the limit is \(maximumBytes)")
        }
        var object: [String: JSONValue] = [:]
        for (name, value) in attributes {
            switch name {
            case "data", "data_base64":
                throw EventDecodingError(
                    .schemaInvalid, field: header(name), "in binary mode the data is the record value, not an attribute"
                )
            case EventEnvelope.Attribute.datacontenttype.rawValue:
                throw EventDecodingError(
                    .schemaInvalid, field: header(name),
                    "in binary mode the data's content type is the content-type header")
            default:
                guard object.updateValue(.string(value), forKey: name) == nil else {
                    throw EventDecodingError(.schemaInvalid, field: header(name), "attribute given twice")
                }
            }
        }
        if let contentType {
            // Media type parameters (`; charset=utf-8`) do not change what JSON data is.
            let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard mediaType == EventEnvelope.contentType else {
                throw EventDecodingError(
                    .schemaInvalid, field: "$.datacontenttype",
                    "expected \(EventEnvelope.contentType) data, got \(contentType)")
            }
            object[EventEnvelope.Attribute.datacontenttype.rawValue] = .string(EventEnvelope.contentType)
        }
        guard let data, !data.isEmpty else {
            throw EventDecodingError(.schemaInvalid, field: "$.data", "required attribute missing (empty record value)")
        }
        do {
            object[EventEnvelope.Attribute.data.rawValue] = try JSONParser.parse(data)
        } catch {
            throw EventDecodingError(.unparseable, field: "$.data", "the record value is not valid JSON: \(error)")
        }
        return try EventEnvelope.decode(CanonicalJSONWriter.encode(.object(object)), maximumBytes: Int.max)
    }

    /// The binding's header for an attribute, for refusals about the header itself.
    static func header(_ attribute: String) -> String { "ce_" + attribute }
}
