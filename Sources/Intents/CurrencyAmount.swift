/// An amount of money in an ISO 4217 currency, as in SiriKit's
/// `INCurrencyAmount`, with an exact decimal amount.
public struct CurrencyAmount: Codable, Sendable, Hashable, CustomStringConvertible {
    public var amount: DecimalAmount
    /// Three upper-case letters (ISO 4217), e.g. CNY, RUB, USD.
    public var currency: String

    public init(amount: DecimalAmount, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        amount = try container.decode(DecimalAmount.self, forKey: .amount)
        currency = try container.decode(String.self, forKey: .currency)
        guard currency.count == 3, currency.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .currency, in: container, debugDescription: "not an ISO 4217 code: \(currency)")
        }
    }

    public var description: String { "\(amount) \(currency)" }

    /// Parses what ``description`` writes: `"1000 CNY"` (the code in any letter case).
    public init?(parsing text: String) {
        let parts = text.split(separator: " ")
        let code = parts.count == 2 ? parts[1].uppercased() : ""
        guard parts.count == 2, let amount = DecimalAmount(String(parts[0])), code.count == 3,
            code.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) })
        else { return nil }
        self.init(amount: amount, currency: code)
    }
}
