/// An exact decimal number as money needs it: a significand and a count of
/// fraction digits, never a binary floating-point value, so "0.10" stays 0.10
/// and sums are exact. On the wire it is a JSON string ("100.00"), because a
/// JSON number passes through a double in most parsers.
public struct DecimalAmount: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The value times 10^scale.
    public let units: Int64
    /// Digits after the decimal point as written ("100.00" has 2).
    public let scale: Int

    public static let maximumIntegerDigits = 12
    public static let maximumScale = 6

    public init(units: Int64, scale: Int) {
        precondition((0...Self.maximumScale).contains(scale), "scale out of range")
        self.units = units
        self.scale = scale
    }

    /// Parses `0`, `12`, `12.5`, `100.00`: no sign, no exponent, no leading
    /// zeros, at most 12 integer and 6 fraction digits (so it fits an Int64).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !integer.isEmpty, integer.count <= Self.maximumIntegerDigits,
            integer.allSatisfy(\.isASCIIDigit), integer == "0" || integer.first != "0",
            parts.count == 1 || (!fraction.isEmpty && fraction.count <= Self.maximumScale),
            fraction.allSatisfy(\.isASCIIDigit),
            let units = Int64(integer + fraction)
        else { return nil }
        self.init(units: units, scale: fraction.count)
    }

    public var description: String {
        guard scale > 0 else { return String(units) }
        let digits = String(units)
        let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
        let point = padded.index(padded.endIndex, offsetBy: -scale)
        return "\(padded[..<point]).\(padded[point...])"
    }

    /// The same value without trailing fraction zeros ("1.50" → "1.5", "100.00" → "100").
    public var normalized: DecimalAmount {
        var scale = self.scale
        var units = self.units
        while scale > 0 && units % 10 == 0 {
            units /= 10
            scale -= 1
        }
        return DecimalAmount(units: units, scale: scale)
    }

    /// Fraction digits that are not trailing zeros ("1.50" has 1).
    public var significantScale: Int { normalized.scale }

    /// The value in units of 10^-scale; nil if it does not fit (never for parsed amounts).
    public func units(atScale target: Int) -> Int64? {
        guard target >= scale else { return nil }
        var result = units
        for _ in scale..<target {
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            result = product
        }
        return result
    }

    public static func < (lhs: DecimalAmount, rhs: DecimalAmount) -> Bool {
        let scale = max(lhs.scale, rhs.scale)
        // Both fit: at most 18 digits at scale 6.
        return lhs.units(atScale: scale)! < rhs.units(atScale: scale)!
    }

    /// Equal values compare equal whatever their scale ("1.0" == "1.00").
    public static func == (lhs: DecimalAmount, rhs: DecimalAmount) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        let normalized = self.normalized
        hasher.combine(normalized.units)
        hasher.combine(normalized.scale)
    }
}

extension DecimalAmount: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = DecimalAmount(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "not a decimal amount like \"100.00\" (a string, at most 12+6 digits): \(text)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
