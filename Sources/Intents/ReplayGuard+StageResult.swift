public import Foundation
public import IntentEvents

extension ReplayGuard {
    /// Admits a verified stage event: nil to act on it, else what the stage answers instead
    /// (nothing for the same event again, a refusal for its id with other contents). The
    /// signature that verified it stands for its contents; without one, its bytes do.
    public mutating func outcome(
        for envelope: EventEnvelope, bytes: [UInt8]?, signature: EventSignature?, now: Date
    ) -> StageResult? {
        let decision =
            if let signature {
                admit(id: envelope.id, fingerprint: signature.hex.hashValue, time: envelope.time, now: now)
            } else {
                admit(id: envelope.id, bytes: bytes ?? [], time: envelope.time, now: now)
            }
        switch decision {
        case .first: return nil
        case .repeated:
            return .ignored("\(envelope.type) \(envelope.id) was acted on already (a redelivery or a replay)")
        case .reused:
            return .rejected(
                EventDecodingError(
                    .replayed, field: "$.id", "event \(envelope.id) was acted on already, with other contents"))
        }
    }
}

extension StageInput {
    /// Remembers in `seen` a record read back from an input partition (a worker that gained
    /// it), as the stage remembered it when it acted: only if it passes these checks.
    public func remember(
        key: String?, value: [UInt8]?, signature: EventSignature?, now: Date, seen: inout ReplayGuard?
    ) {
        remember(
            verifiedAtAnyAge(key: key, value: value, signature: signature), value: value, signature: signature,
            now: now, seen: &seen)
    }

    /// ``remember(key:value:signature:now:seen:)`` for a record's event checked already by
    /// ``StageInput/verifiedAtAnyAge(key:value:signature:)`` (nil: it failed): only its
    /// freshness is checked, at `now`.
    public func remember(
        _ envelope: EventEnvelope?, value: [UInt8]?, signature: EventSignature?, now: Date, seen: inout ReplayGuard?
    ) {
        guard let envelope else { return }
        do throws(EventDecodingError) {
            try freshness?.check(envelope, now: now)
        } catch {
            return
        }
        _ = seen?.outcome(for: envelope, bytes: value, signature: signature, now: now)
    }
}
