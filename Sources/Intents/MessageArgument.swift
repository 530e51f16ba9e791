public import IntentEvents

/// A value a ``MessageKey``'s sentence names, kept typed so each locale formats it
/// its own way (CLDR: "100,00 ₽", "¥100.00"; lists joined as the language joins them).
/// On the wire, an object with one member naming the kind: `{"amount": {...}}`,
/// `{"text": "…"}`, `{"number": 3}`, `{"names": [...]}`, `{"choices": [...]}`.
public enum MessageArgument: Sendable, Hashable {
    case text(String)
    case amount(CurrencyAmount)
    case number(Int)
    /// Names read as one group ("A, B and C").
    case names([String])
    /// Alternatives to choose from ("A, B or C").
    case choices([String])

    /// Its JSON, as ``init(json:)`` reads it and the canonical writer writes it.
    public var json: JSONValue {
        switch self {
        case .text(let text): .object(["text": .string(text)])
        case .amount(let amount):
            .object([
                "amount": .object(["amount": .string(amount.amount.description), "currency": .string(amount.currency)])
            ])
        case .number(let number): .object(["number": .integer(Int64(number))])
        case .names(let names): .object(["names": .array(names.map(JSONValue.string))])
        case .choices(let choices): .object(["choices": .array(choices.map(JSONValue.string))])
        }
    }

    /// Nil for anything but one of the four shapes (read as ``read(from:)`` reads them).
    public init?(json: JSONValue) {
        guard
            let argument = JSONValueReader.read(json, { (reader) throws(JSONRefusal) in try Self.read(from: &reader) })
        else { return nil }
        self = argument
    }
}

extension MessageArgument {
    /// Arguments by name as one JSON object, as responses carry them.
    public static func json(_ arguments: [String: MessageArgument]) -> JSONValue {
        .object(arguments.mapValues(\.json))
    }
}

extension MessageArgument: Codable {
    public init(from decoder: any Decoder) throws {
        // Through the container, not `JSONValue(from:)`: the pipeline's decoder hands over the
        // value whole instead of trying each JSON type in turn (JSONValueDecoder).
        let json = try decoder.singleValueContainer().decode(JSONValue.self)
        guard let argument = MessageArgument(json: json) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "a message argument is one of {\"text\"}, {\"amount\"}, {\"number\"}, {\"names\"}, {\"choices\"}"
                ))
        }
        self = argument
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
