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
        guard let event = try? verified(key: key, value: value, signature: signature, now: now) else { return }
        _ = seen?.outcome(for: event.envelope, bytes: value, signature: signature, now: now)
    }
}
