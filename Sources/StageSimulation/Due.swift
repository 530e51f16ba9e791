/// Something that happens at an instant of the manual clock: a delivery report, an
/// answer the voice service sends.
protocol Due {
    var due: ManualClock.Instant { get }
}

/// What is to happen, in the order it was scheduled, with the earliest instant kept
/// beside it: asked every step, it answers "nothing yet" without looking at every
/// element (the voice service holds hundreds of answers due seconds later).
struct DueQueue<Element: Due> {
    private var elements: [Element] = []
    private var earliest: ManualClock.Instant?

    var isEmpty: Bool { elements.isEmpty }

    mutating func append(_ element: Element) {
        elements.append(element)
        earliest = earliest.map { min($0, element.due) } ?? element.due
    }

    /// Removes and returns, in the order they were scheduled, the elements due by `now`.
    mutating func removeDue(by now: ManualClock.Instant) -> [Element] {
        guard let earliest, earliest <= now else { return [] }
        let taken = elements.filter { $0.due <= now }
        elements.removeAll { $0.due <= now }
        self.earliest = elements.lazy.map { $0.due }.min()
        return taken
    }
}
