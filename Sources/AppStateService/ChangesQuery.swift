/// The query of `GET /api/users/USER/changes`, read strictly: a cursor that is
/// not a plain non-negative integer, or a wait that is not a whole number of
/// seconds within the cap, is a 400 with the reason, never "everything from
/// the beginning" or a connection held for ever.
public struct ChangesQuery: Sendable, Hashable {
    /// The longest a long poll waits, in seconds.
    public static let maximumWait = 60

    public var since: Int64
    public var wait: Int

    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public var parameter: String
        public var description: String
    }

    /// `since` and `wait` as they appear in the query (absent: 0).
    public init(since: String?, wait: String?) throws(Invalid) {
        self.since = try Self.number(since, "since", maximum: Int64.max)
        self.wait = Int(try Self.number(wait, "wait", maximum: Int64(Self.maximumWait)))
    }

    private static func number(_ text: String?, _ name: String, maximum: Int64) throws(Invalid) -> Int64 {
        guard let text else { return 0 }
        // Digits only: no sign, exponent, fraction or spaces, and no more than fit.
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let value = Int64(text), value <= maximum
        else {
            let range = name == "wait" ? "0 to \(maximum) seconds" : "a non-negative integer cursor"
            throw Invalid(parameter: name, description: "\(name) must be \(range), got \"\(text.prefix(40))\"")
        }
        return value
    }
}
