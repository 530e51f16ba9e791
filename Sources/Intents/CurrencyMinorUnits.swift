/// How many fraction digits each currency's smallest unit has (ISO 4217's
/// "minor units"): 2 for CNY (fen), 0 for JPY (no sen in use), 3 for KWD
/// (fils). Money enters the system only in amounts its currency can hold: a
/// deposit of 1.234 CNY or an intent for 5.5 JPY is refused, not rounded, so
/// no one is credited a fraction that cannot be paid out. A table, not a
/// guess: a code it does not list is refused as unknown.
public enum CurrencyMinorUnits {
    /// Active ISO 4217 codes the pipeline knows, by their minor units.
    public static let table: [String: Int] = {
        var table: [String: Int] = [:]
        for code in [
            "AED", "ARS", "AUD", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EGP", "EUR", "GBP", "HKD", "ILS", "INR",
            "MXN", "MYR", "NOK", "NZD", "PHP", "PLN", "RUB", "SAR", "SEK", "SGD", "THB", "TRY", "TWD", "UAH", "USD",
            "ZAR",
        ] {
            table[code] = 2
        }
        for code in ["CLP", "ISK", "JPY", "KRW", "PYG", "UGX", "VND", "XAF", "XOF"] { table[code] = 0 }
        for code in ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"] { table[code] = 3 }
        return table
    }()

    /// Why an amount cannot enter: its currency is unknown, or it has more fraction
    /// digits than the currency's minor units.
    public enum Violation: Error, Sendable, Hashable, CustomStringConvertible {
        case unknownCurrency(String)
        case tooPrecise(CurrencyAmount, minorUnits: Int)

        /// The machine-readable name (as in the resolve stage's answers).
        public var reason: String {
            switch self {
            case .unknownCurrency: "currencyUnknown"
            case .tooPrecise: "invalidAmountPrecision"
            }
        }

        public var description: String {
            switch self {
            case .unknownCurrency(let code): "\(code) is not an ISO 4217 currency this pipeline knows"
            case .tooPrecise(let amount, let minorUnits):
                "\(amount) has more fraction digits than \(amount.currency)'s \(minorUnits) minor units"
            }
        }
    }

    /// The currency's minor units, or nil when the table does not know it.
    public static func of(_ currency: String) -> Int? { table[currency] }

    /// What keeps `amount` out, or nil when it is expressible in its currency.
    public static func violation(of amount: CurrencyAmount) -> Violation? {
        guard let units = table[amount.currency] else { return .unknownCurrency(amount.currency) }
        return amount.amount.significantScale > units ? .tooPrecise(amount, minorUnits: units) : nil
    }
}
