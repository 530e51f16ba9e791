/// A message attribute, as in SiriKit's `INMessageAttribute`: what "mark as
/// read" sets and what a search can filter by.
public enum MessageAttribute: String, Codable, Sendable, Hashable, CaseIterable {
    case read, unread, flagged, unflagged
}
