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
    ///
    /// Read byte by byte, with no allocation: every amount in every payment event a
    /// stage reads is parsed here (splitting the text into substrings and joining them
    /// again cost two allocations an amount).
    public init?(_ text: String) {
        var units: Int64 = 0
        var integerDigits = 0
        var fractionDigits: Int? = nil
        var leadingZero = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), fractionDigits == nil {
                fractionDigits = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if let digits = fractionDigits {
                guard digits < Self.maximumScale else { return nil }
                fractionDigits = digits + 1
            } else {
                guard integerDigits < Self.maximumIntegerDigits, !leadingZero else { return nil }
                leadingZero = integerDigits == 0 && byte == UInt8(ascii: "0")
                integerDigits += 1
            }
            // At most 18 digits: never overflows.
            units = units * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        guard integerDigits > 0, fractionDigits != 0 else { return nil }
        self.init(units: units, scale: fractionDigits ?? 0)
    }

    /// The digits with the point before the last `scale` of them, at least one digit before
    /// it ("0.05"), and a minus sign before a negative amount (which no parsed text gives).
    ///
    /// Written on the stack and then made a string, so an amount of up to 15 bytes (nearly all)
    /// is a small string, with no allocation.
    public var description: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumWrittenCount) { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[..<write(into: buffer)]), as: UTF8.self)
        }
    }

    /// Appends ``description``'s bytes to `output` (a canonical JSON string's contents: a
    /// sign, digits and a point need no escaping), with no string in between.
    public func appendDescription(to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumWrittenCount) { buffer in
            output.append(contentsOf: buffer[..<write(into: buffer)])
        }
    }

    /// The most bytes ``write(into:)`` writes: a sign, an Int64's 19 digits, the point, and
    /// a zero before the point when the scale is not smaller than the digits.
    private static let maximumWrittenCount = 1 + 19 + 1 + 1 + maximumScale

    /// Writes ``description`` at the start of `buffer` (at least ``maximumWrittenCount``
    /// long), from its last digit back; returns its length.
    private func write(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits = digitCount
        let length = (units < 0 ? 1 : 0) + digits + (scale > 0 ? 1 : 0)
        var rest = units.magnitude
        var position = length
        for written in 0..<digits {
            if written == scale, scale > 0 {
                position -= 1
                buffer[position] = UInt8(ascii: ".")
            }
            position -= 1
            buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        if units < 0 { buffer[0] = UInt8(ascii: "-") }
        return length
    }

    /// How many digits ``description`` writes: the magnitude's, and at least one before the
    /// point ("0.05" is three).
    public var digitCount: Int {
        var significant = 1
        var rest = units.magnitude
        while rest >= 10 {
            rest /= 10
            significant += 1
        }
        return max(significant, scale + 1)
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
