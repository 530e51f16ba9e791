public import Foundation

/// RFC 3339 timestamps as events carry them: UTC, exactly three fraction
/// digits on output, with or without fractional seconds on input.
///
/// Output rounds to the nearest millisecond by integer arithmetic, so
/// formatting a parsed time gives back the same text. That makes an event's
/// canonical form (what signatures and bindings cover) survive a round trip;
/// Foundation's own fractional formatting truncates a double such as
/// 0.12399999 to ".123".
public enum EventTime {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    public static func format(_ date: Date) -> String {
        format(milliseconds: milliseconds(date))
    }

    public static func format(milliseconds: Int64) -> String {
        civilFormat(milliseconds: milliseconds) ?? foundationFormat(milliseconds: milliseconds)
    }

    /// The same text as ``foundationFormat(milliseconds:)`` by integer
    /// arithmetic (days to a proleptic Gregorian date), for times from 1970
    /// to year 9999; nil outside, where Foundation's calendar decides. Every
    /// event encoded (published or verified) formats its time, and the
    /// format style's calendar machinery was several percent of a worker's time.
    static func civilFormat(milliseconds: Int64) -> String? {
        var text: [UInt8] = []
        text.reserveCapacity(24)
        guard writeCivil(milliseconds: milliseconds, into: &text) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the time's text (``format(_:)``) to `output`: how an envelope writes its
    /// time, with no string in between (every published event has one).
    public static func write(_ date: Date, into output: inout [UInt8]) {
        write(milliseconds: milliseconds(date), into: &output)
    }

    /// ``write(_:into:)`` of a time in whole milliseconds (a payload's ``Timestamp``).
    public static func write(milliseconds: Int64, into output: inout [UInt8]) {
        if !writeCivil(milliseconds: milliseconds, into: &output) {
            output.append(contentsOf: foundationFormat(milliseconds: milliseconds).utf8)
        }
    }

    /// ``civilFormat(milliseconds:)``'s text appended to `text`; false, appending nothing,
    /// outside 1970 to 9999.
    static func writeCivil(milliseconds: Int64, into text: inout [UInt8]) -> Bool {
        guard milliseconds >= 0 else { return false }
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        // H. Hinnant's civil_from_days, for days >= 0 (1970-01-01).
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard year <= 9999 else { return false }
        func digits(_ value: Int64, _ count: Int, then separator: UInt8) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            text.append(separator)
        }
        digits(year, 4, then: UInt8(ascii: "-"))
        digits(month, 2, then: UInt8(ascii: "-"))
        digits(day, 2, then: UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2, then: UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2, then: UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2, then: UInt8(ascii: "."))
        digits(fraction, 3, then: UInt8(ascii: "Z"))
        return true
    }

    /// The reference formatting, through Foundation's ISO 8601 format style.
    static func foundationFormat(milliseconds: Int64) -> String {
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (wholeSeconds, fraction) = remainder < 0 ? (seconds - 1, remainder + 1000) : (seconds, remainder)
        let text = withoutFraction.format(Date(timeIntervalSince1970: Double(wholeSeconds)))
        let digits = String(fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Milliseconds since 1970, rounded to the nearest.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Parses, then rounds to whole milliseconds: a time with more fraction
    /// digits ("…:00.0002Z") is the time its canonical form says, so what a
    /// signature covers and what the consumer acts on are the same instant
    /// (found by fuzzing: such an envelope did not survive its own canonical form).
    public static func parse(_ text: String) -> Date? {
        if let milliseconds = civilParse(text) { return date(milliseconds: milliseconds) }
        return foundationParse(text)
    }

    /// The instant `milliseconds` after 1970 as ``parse(_:)`` gives it.
    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The reference parsing, through Foundation's ISO 8601 format styles.
    static func foundationParse(_ text: String) -> Date? {
        guard let date = (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text)) else { return nil }
        return self.date(milliseconds: milliseconds(date))
    }

    /// The milliseconds of a time exactly as events write it,
    /// `YYYY-MM-DDTHH:MM:SS.fffZ` (or without the fraction), for a valid date
    /// and time from 1970 to year 9999, by integer arithmetic: the instant
    /// Foundation's parsing gives, rounded as ``parse(_:)`` rounds it. Every
    /// event decoded parses its time, and the format style's parsing was a few
    /// percent of a worker's time. Nil for anything else (other fraction
    /// lengths, offsets, out-of-range fields), which Foundation decides.
    static func civilParse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { civilParse($0) }
    }

    /// ``civilParse(_:)`` of a time's UTF-8 bytes, for an envelope's `time` read straight
    /// from a record (no string made for it).
    static func civilParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else {
            return nil
        }
        func number(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for index in start..<start + count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2),
            (1970...9999).contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction: Int64 = 0
        if bytes.count == 24 {
            guard bytes[19] == UInt8(ascii: "."), let digits = number(20, 3) else { return nil }
            fraction = digits
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: Int64 =
            switch month {
            case 2: leap ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        guard day >= 1, day <= monthDays else { return nil }
        // H. Hinnant's days_from_civil, for years >= 1970.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + fraction
    }
}
