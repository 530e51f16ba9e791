public import Intents

/// An amount in one currency as an integer count of micro-units (10^-6), so
/// balances add and compare exactly. Every `DecimalAmount` fits (at most 12
/// integer and 6 fraction digits).
public struct Money: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let scale = DecimalAmount.maximumScale
    public var currency: String
    public var micros: Int64

    public init(currency: String, micros: Int64) {
        self.currency = currency
        self.micros = micros
    }

    public init(_ amount: CurrencyAmount) {
        // A parsed DecimalAmount always fits at scale 6.
        self.init(currency: amount.currency, micros: amount.amount.units(atScale: Self.scale)!)
    }

    public static func zero(_ currency: String) -> Money { Money(currency: currency, micros: 0) }

    /// The amount as written on the wire, without trailing zeros ("100.5").
    public var amount: DecimalAmount { DecimalAmount(units: micros, scale: Self.scale).normalized }

    public var currencyAmount: CurrencyAmount { CurrencyAmount(amount: amount, currency: currency) }

    public var description: String { "\(amount) \(currency)" }

    public static func < (lhs: Money, rhs: Money) -> Bool {
        precondition(lhs.currency == rhs.currency, "comparing \(lhs.currency) with \(rhs.currency)")
        return lhs.micros < rhs.micros
    }
}
