/// Something that happens at an instant of the manual clock: a delivery report, an
/// answer the voice service sends.
protocol Due {
    var due: ManualClock.Instant { get }
}

extension Array where Element: Due {
    /// Removes and returns, in order, the elements due by `now`.
    mutating func removeDue(by now: ManualClock.Instant) -> [Element] {
        let taken = filter { $0.due <= now }
        if !taken.isEmpty { removeAll { $0.due <= now } }
        return taken
    }
}
