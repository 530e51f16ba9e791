public import IntentEvents

extension CurrencyAmount {
    /// An amount as JSON holds it (`{"amount": "12.50", "currency": "EUR"}`); nil for anything else.
    public init?(json: JSONValue) {
        guard let amount = JSONValueReader.read(json, { (reader) throws(JSONRefusal) in try Self.read(from: &reader) })
        else { return nil }
        self = amount
    }

    /// Exactly `amount` (a decimal string) and `currency` (three capital letters), each once.
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> CurrencyAmount {
        var amount: DecimalAmount?
        var currency: String?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "amount":
                guard let parsed = DecimalAmount(try value.readString()) else { throw JSONRefusal() }
                try setOnce(&amount, parsed)
            case "currency":
                let code = try value.readString()
                guard code.utf8.count == 3,
                    code.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
                else { throw JSONRefusal() }
                try setOnce(&currency, code)
            default: throw JSONRefusal()
            }
        }
        guard let amount, let currency else { throw JSONRefusal() }
        return CurrencyAmount(amount: amount, currency: currency)
    }
}
