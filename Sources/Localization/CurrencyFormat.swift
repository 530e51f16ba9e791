import Foundation
import Intents

/// Amounts of money in a locale, byte for byte as Foundation's currency format style
/// writes them (CLDR's pattern, symbol, separators and grouping, through ICU), without
/// asking ICU for every amount: building the format style and formatting through ICU was
/// about 4 % of a stage's time, once per record that names an amount.
///
/// What ICU writes for an amount depends on the locale, the currency, the sign, how many
/// integer digits it has (grouping) and how many fraction digits it shows, not on which
/// digits they are. So the first amount of each such shape is formatted by Foundation
/// twice, with two different probe digits, and its text kept as a template (the bytes
/// around the digits, the places of the digits); later amounts of that shape put their
/// own digits in those places. A shape whose text does not behave so (digits that are
/// not ASCII, as Arabic locales write them, or that move with their value) keeps no
/// template and is formatted by Foundation every time. `CurrencyFormatEquivalenceTests`
/// compares the two over many amounts, currencies and locales.
enum CurrencyFormat {
    /// What an amount's text depends on, besides its digits.
    struct Shape: Hashable {
        var locale: String
        var currency: String
        var negative: Bool
        var integerDigits: Int
        var scale: Int
    }

    /// An amount's text with its digits taken out: `bytes` with a digit at each of
    /// `digitOffsets`, in order (integer digits, then fraction digits).
    struct Template: Sendable {
        var bytes: [UInt8]
        var digitOffsets: [Int]
    }

    /// Templates by shape; nil for a shape Foundation must format itself. One table for
    /// every renderer: the shapes are few.
    private static let templates = BoundedMemo<Shape, Template?>(capacity: maximumShapes)
    static let maximumShapes = 4096

    static var shapeCount: Int { templates.count }

    static func cachedTemplate(for shape: Shape) -> Template?? {
        templates.value(for: shape)
    }

    static func format(_ amount: CurrencyAmount, locale: Locale) -> String {
        let shape = Shape(
            locale: locale.identifier, currency: amount.currency, negative: amount.amount.units < 0,
            integerDigits: amount.amount.digitCount - amount.amount.scale, scale: amount.amount.scale)
        let template = templates.value(for: shape) { Self.template(for: $0, locale: locale) }
        guard let template, let text = fill(template, amount.amount) else { return foundation(amount, locale: locale) }
        return text
    }

    /// The reference: Foundation's currency style, a whole amount with the currency's usual
    /// fraction digits, any other with every digit it has (at least two), never rounded away.
    static func foundation(_ amount: CurrencyAmount, locale: Locale) -> String {
        let value = Decimal(
            sign: amount.amount.units < 0 ? .minus : .plus, exponent: -amount.amount.scale,
            significand: Decimal(amount.amount.units.magnitude))
        let style = Decimal.FormatStyle.Currency(code: amount.currency, locale: locale)
        guard amount.amount.scale > 0 else { return value.formatted(style) }
        return value.formatted(style.precision(.fractionLength(max(amount.amount.scale, 2))))
    }

    /// The template of a shape, from two probes that differ only in their digits; nil when
    /// filling the first probe's template with the second's digits does not give Foundation's text.
    private static func template(for shape: Shape, locale: Locale) -> Template? {
        func probe(_ digit: UInt8) -> (amount: CurrencyAmount, text: [UInt8]) {
            let units = String(repeating: Character(Unicode.Scalar(digit)), count: shape.integerDigits + shape.scale)
            let amount = CurrencyAmount(
                amount: DecimalAmount(units: (Int64(units) ?? 0) * (shape.negative ? -1 : 1), scale: shape.scale),
                currency: shape.currency)
            return (amount, Array(foundation(amount, locale: locale).utf8))
        }
        guard shape.integerDigits + shape.scale <= 18 else { return nil }
        let first = probe(UInt8(ascii: "7"))
        let offsets = first.text.indices.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first.text[$0]) }
        let template = Template(bytes: first.text, digitOffsets: offsets)
        let second = probe(UInt8(ascii: "3"))
        guard let filled = fill(template, second.amount.amount),
            Array(filled.utf8) == second.text
        else { return nil }
        return template
    }

    /// The template's text with the amount's digits in its places (as ``DecimalAmount``
    /// writes them: at least one before the point), then zeros in the places left (a
    /// fraction written shorter than the currency shows it); nil when it has more digits
    /// than places. Written from the last digit back, with no array of digits between.
    static func fill(_ template: Template, _ amount: DecimalAmount) -> String? {
        let places = template.digitOffsets.count
        let digits = amount.digitCount
        guard digits <= places else { return nil }
        return String(unsafeUninitializedCapacity: template.bytes.count) { output in
            _ = output.initialize(from: template.bytes)
            var rest = amount.units.magnitude
            for place in (0..<digits).reversed() {
                output[template.digitOffsets[place]] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            for place in digits..<places { output[template.digitOffsets[place]] = UInt8(ascii: "0") }
            return template.bytes.count
        }
    }
}
