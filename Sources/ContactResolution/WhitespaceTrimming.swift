import Foundation

/// Every request's spoken names are trimmed several times on the way to a
/// match. Foundation's `trimmingCharacters(in:)` bridges to `NSString` and
/// copies even when there is nothing to trim, which is nearly always.
private let whitespaceAndNewlines = CharacterSet.whitespacesAndNewlines

extension String {
    /// Exactly `trimmingCharacters(in: .whitespacesAndNewlines)`: when the
    /// first and last scalars are outside that set nothing would be
    /// trimmed, so the string is returned as it is; otherwise Foundation trims.
    public var trimmingWhitespaceAndNewlines: String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last,
            !whitespaceAndNewlines.contains(first), !whitespaceAndNewlines.contains(last)
        else { return trimmingCharacters(in: .whitespacesAndNewlines) }
        return self
    }
}
