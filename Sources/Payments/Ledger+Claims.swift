public import Foundation
public import IntentEvents

/// How a payments member takes a ledger partition over (``LedgerOwner``), as pure steps on
/// the partition's ledger, so the worker (`PaymentsState`) and the simulation's payments
/// members (`PartitionedLedgers`) claim by one rule: a claim is written when the member
/// holds none that is still the latest, and adopted as its writer only if, read back in
/// the topic's order, it is the latest (the first claim of an epoch in the partition wins).
extension Ledger {
    /// The claim `member` must write before deciding on `partition`, or nil while it writes
    /// under a claim that is still the partition's latest.
    public func claimNeeded(on partition: Int32, member: String) -> LedgerOwner? {
        guard writer == nil || isFenced else { return nil }
        return LedgerOwner.next(after: owners[partition], partition: partition, member: member)
    }

    /// After the claims were read back: takes `claim` as the claim this member writes under
    /// if it is its partition's latest; false when another member's claim won.
    public mutating func adopt(_ claim: LedgerOwner) -> Bool {
        guard owners[claim.partition] == claim else { return false }
        writer = claim
        return true
    }
}

extension LedgerOwner {
    /// The claim as the payments stage writes it to the ledger topic: keyed by the claim key
    /// `placement` (the topic's partitioner) puts on the claimed partition.
    public func claimEnvelope(time: Date, placement: (String) -> Int32) -> EventEnvelope {
        let key = Self.claimKey(partition: partition, placement: placement)
        return claimEvent(key: key).envelope(
            source: PipelineSource.payments, time: time, conversationID: "ledger-owner")
    }
}
