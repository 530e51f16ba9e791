/// What applying a record of a compacted directory topic (a contact, a user's settings) did.
public enum DirectoryApplication: Sendable, Hashable {
    /// The user sees a change (the contact's item, a name on a payment or request, the page's language).
    case changed
    /// Applied, but nothing the user sees changed (the same contact or setting again).
    case unchanged
    /// Ignored: the record's key is already at `seen`, which `version` does not supersede
    /// (``RecordVersion/supersedes(_:seen:)``): a replay of an older record or tombstone.
    case stale(version: Int64, seen: Int64)
}
