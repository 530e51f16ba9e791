/// Where `intentctl events read` starts in each partition, written as kcat's `-o` is:
/// `beginning`, `end`, an absolute offset `N`, or `-N`, the last N records of each partition.
public enum ReadStart: Sendable, Hashable {
    case beginning
    case end
    case offset(Int64)
    case last(Int64)

    /// The option's text, or nil when it is none of the forms.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "beginning", "earliest", "oldest": self = .beginning
        case "end", "latest", "newest": self = .end
        default:
            guard let number = Int64(text) else { return nil }
            self = number < 0 ? .last(-number) : .offset(number)
        }
    }

    /// The first offset to read of a partition holding `low..<high`: within the partition's
    /// retained records, or `high` (nothing yet, only what comes next).
    public func offset(low: Int64, high: Int64) -> Int64 {
        switch self {
        case .beginning: low
        case .end: high
        case .offset(let offset): min(max(offset, low), high)
        case .last(let count): max(low, high - count)
        }
    }
}
