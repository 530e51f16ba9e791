import Foundation

/// Which currencies the app's payments support, and the limits per currency.
/// Configuration, not code: operators set it with `--currencies` or
/// `INTENT_CURRENCIES` (see ``parse(_:)``). Here, beside the amounts, because three
/// stages apply the one rule: the resolve stage asks the user about it, the confirm
/// stage refuses it, and the payments stage checks it again before it holds money.
public struct AmountPolicy: Sendable, Hashable {
    public struct Limits: Sendable, Hashable {
        public var minimum: DecimalAmount
        public var maximum: DecimalAmount

        public init(minimum: DecimalAmount, maximum: DecimalAmount) {
            self.minimum = minimum
            self.maximum = maximum
        }

        /// Fraction digits an amount may have: those of the minimum's
        /// (0.01 CNY allows fen, 1 JPY allows none).
        public var fractionDigits: Int { minimum.scale }
    }

    /// By ISO 4217 code.
    public var currencies: [String: Limits]

    public init(currencies: [String: Limits]) {
        self.currencies = currencies
    }

    /// CNY, EUR, GBP, RUB and USD with consumer-app limits.
    public static let `default` = try! parse("CNY:0.01:50000,EUR:0.01:10000,GBP:0.01:10000,RUB:1:500000,USD:0.01:10000")

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `CODE:MIN:MAX,CODE:MIN:MAX`, e.g. `CNY:0.01:50000,RUB:1:500000`.
    public static func parse(_ text: String) throws(ParseError) -> AmountPolicy {
        var currencies: [String: Limits] = [:]
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let fields = entry.split(separator: ":").map(String.init)
            guard fields.count == 3, fields[0].count == 3, fields[0] == fields[0].uppercased(),
                let minimum = DecimalAmount(fields[1]), let maximum = DecimalAmount(fields[2]), minimum <= maximum
            else {
                throw ParseError(
                    description:
                        "bad currency entry \"\(entry)\": expected CODE:MIN:MAX with MIN <= MAX, e.g. CNY:0.01:50000")
            }
            // Amounts enter in what their currency can hold (ISO 4217 minor units): a
            // minimum finer than that would let an intent for 5.5 JPY through.
            guard let minorUnits = CurrencyMinorUnits.of(fields[0]) else {
                throw ParseError(
                    description: "bad currency entry \"\(entry)\": \(fields[0]) is not a known ISO 4217 code")
            }
            guard minimum.significantScale <= minorUnits else {
                throw ParseError(
                    description:
                        "bad currency entry \"\(entry)\": \(fields[0]) has \(minorUnits) minor units, finer than its minimum \(minimum)"
                )
            }
            currencies[fields[0]] = Limits(minimum: minimum, maximum: maximum)
        }
        guard !currencies.isEmpty else { throw ParseError(description: "no currencies given") }
        return AmountPolicy(currencies: currencies)
    }

    /// Supported codes, sorted: the alternatives offered for an unsupported currency.
    public var supportedCurrencies: [String] { currencies.keys.sorted() }

    /// What is wrong with an amount under this policy. One rule, one set of
    /// names: the resolve stage asks the user about it (``resolve(_:parameter:)``)
    /// and the confirm stage refuses it with the same reason.
    public enum Violation: Sendable, Hashable {
        case currencyUnsupported(supported: [String])
        case belowMinimum(DecimalAmount)
        case aboveMaximum(DecimalAmount)
        case tooPrecise(fractionDigits: Int)

        /// The machine-readable reason, in resolutions and responses alike.
        public var reason: String {
            switch self {
            case .currencyUnsupported: "paymentsCurrencyUnsupported"
            case .belowMinimum: "paymentsAmountBelowMinimum"
            case .aboveMaximum: "paymentsAmountAboveMaximum"
            case .tooPrecise: "invalidAmountPrecision"
            }
        }

        /// SiriKit's response code for a payment refused by this rule (a precision rule has
        /// none of its own: a failure whose reason is ``reason``).
        public var responseCode: ResponseCode {
            switch self {
            case .currencyUnsupported: .failurePaymentsCurrencyUnsupported
            case .belowMinimum: .failurePaymentsAmountBelowMinimum
            case .aboveMaximum: .failurePaymentsAmountAboveMaximum
            case .tooPrecise: .failure
            }
        }
    }

    /// The first rule `amount` breaks, or nil when it is payable.
    public func check(_ amount: CurrencyAmount) -> Violation? {
        guard let limits = currencies[amount.currency] else {
            return .currencyUnsupported(supported: supportedCurrencies)
        }
        if amount.amount < limits.minimum { return .belowMinimum(limits.minimum) }
        if amount.amount > limits.maximum { return .aboveMaximum(limits.maximum) }
        if amount.amount.significantScale > limits.fractionDigits {
            return .tooPrecise(fractionDigits: limits.fractionDigits)
        }
        return nil
    }
}
