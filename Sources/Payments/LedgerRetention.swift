import IntentEvents

/// Bounded idempotency memory: what the ledger remembers of decided things,
/// and for how long (``Ledger/idempotencyHorizon``).
///
/// The ledger's clock is the latest event time it applied (its
/// ``Ledger/watermark``), never the wall clock, so a ledger rebuilt from a
/// snapshot and the topic forgets exactly what the live one forgot. Open
/// things are never forgotten: a held transfer, a proposal awaiting its
/// answer, a pending request.
extension Ledger {
    static let secondsPerHour: Int64 = 3600

    static func hour(of time: Timestamp) -> Int64 {
        time.milliseconds / 1000 / secondsPerHour
    }

    /// Records an applied event id under the hour it was applied (its own time, or the
    /// ledger's clock if that is later: a late event is remembered for a whole horizon
    /// from when it arrived), moves the watermark, and forgets what fell behind the
    /// horizon once an hour of ledger time passed.
    mutating func remember(_ eventID: String, shape: UInt64, at time: Timestamp?) {
        guard let time else {
            applied[eventID] = Applied(hour: Self.undated, shape: shape)
            return
        }
        let hour = Self.hour(of: watermark.map { max($0, time) } ?? time)
        applied[eventID] = Applied(hour: hour, shape: shape)
        appliedByHour[hour, default: []].append(eventID)
        if watermark.map({ time > $0 }) ?? true { watermark = time }
        if let watermark, Self.hour(of: watermark) > prunedThroughHour { forgetBeyondHorizon() }
    }

    /// The horizon in whole seconds, bounded to a century, so no arithmetic with it can
    /// overflow whatever a snapshot said; nil without a horizon.
    private var horizonSeconds: Int64? {
        idempotencyHorizon.map { min(max($0.components.seconds, 0), 100 * 365 * 86_400) }
    }

    /// The oldest hour whose event ids are remembered at the watermark (an id is remembered
    /// under the hour it was applied in, never before its own): nil while nothing is forgotten.
    var oldestRememberedHour: Int64? {
        guard let horizonSeconds, let watermark else { return nil }
        return Self.hour(of: watermark) &- (horizonSeconds + Self.secondsPerHour - 1) / Self.secondsPerHour
    }

    /// Refuses an event dated before ``oldestRememberedHour``: its id may have been
    /// forgotten, so a copy of an event applied long ago (a deposit re-appended to the
    /// ledger topic, signed as it was, days later) would be applied again. An event the
    /// ledger cannot tell from a copy is never applied. The inputs that date events are
    /// refused long before this (the stage's freshness windows); on a ledger replayed in
    /// order, an original is never older than the events before it by a horizon.
    func checkRemembered(_ event: LedgerEvent, at time: Timestamp?) throws(ApplyError) {
        guard let time, let oldest = oldestRememberedHour else { return }
        let hour = Self.hour(of: time)
        if hour < oldest { throw .beyondMemory(event: event.id, hour: hour, oldestRemembered: oldest) }
    }

    /// Forgets the event ids, decided transfers, ended requests and closed
    /// proposals decided before the watermark minus the horizon.
    mutating func forgetBeyondHorizon() {
        guard let horizonSeconds, let watermark, let oldestHour = oldestRememberedHour else { return }
        prunedThroughHour = Self.hour(of: watermark)
        for hour in appliedByHour.keys where hour < oldestHour {
            for id in appliedByHour.removeValue(forKey: hour) ?? [] where applied[id]?.hour == hour {
                applied[id] = nil
            }
        }
        let cutoff = Timestamp(milliseconds: watermark.milliseconds &- horizonSeconds * 1000)
        func decidedBefore(_ decidedAt: Timestamp?) -> Bool { decidedAt.map { $0 < cutoff } ?? false }
        transfers = transfers.filter { $0.value.status == .held || !decidedBefore($0.value.decidedAt) }
        requests = requests.filter { request in
            switch request.value.status {
            case .proposed, .pending: true
            case .declined, .paid, .closed: !decidedBefore(request.value.endedAt ?? request.value.decidedAt)
            }
        }
        closedProposals = closedProposals.filter { !decidedBefore($0.value.decidedAt) }
    }

    /// A stable hash (FNV-1a, the same in every process and snapshot) of what an event is
    /// about: its kind, user, transfer and request.
    static func shape(of event: LedgerEvent) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for field in [event.kind.rawValue, event.userID, event.transferID ?? "", event.requestID ?? ""] {
            for byte in field.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 0xff) &* 0x100_0000_01b3
        }
        return hash
    }

    /// How many event ids the ledger remembers (the idempotency memory).
    public var rememberedEventCount: Int { applied.count }
}
