public import Foundation
public import IntentEvents

extension ReplayGuard {
    /// Admits a verified stage event: nil to act on it, else what the stage answers instead
    /// (nothing for the same event again, a refusal for its id with other contents).
    public mutating func outcome(for envelope: EventEnvelope, bytes: [UInt8]?, now: Date) -> StageResult? {
        switch admit(id: envelope.id, bytes: bytes ?? [], time: envelope.time, now: now) {
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
