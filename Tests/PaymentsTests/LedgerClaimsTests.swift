import Foundation
import IntentEvents
import Payments
import Testing

/// How a payments member takes a ledger partition over (``Ledger/claimNeeded(on:member:)``,
/// ``Ledger/adopt(_:)``): the one rule the worker and the simulation's members claim by.
@Suite("Ledger partition claims")
struct LedgerClaimsTests {
    @Test("a member claims the epoch after the latest, writes under it once read back, and claims anew when overtaken")
    func claimAdoptOvertake() throws {
        var ledger = Ledger()
        let first = try #require(ledger.claimNeeded(on: 3, member: "member-a"))
        #expect(first == LedgerOwner(partition: 3, epoch: 1, member: "member-a"))
        // Not read back yet: not the partition's latest, so not adopted.
        let early = ledger.adopt(first)
        #expect(!early)
        #expect(ledger.writer == nil)
        try ledger.apply(first.claimEvent(key: "k"))
        let adopted = ledger.adopt(first)
        #expect(adopted)
        #expect(ledger.writer == first)
        #expect(ledger.claimNeeded(on: 3, member: "member-a") == nil, "its claim is still the latest")

        // Another member's claim overtakes it: fenced, and a claim anew is above the other's.
        try ledger.apply(LedgerOwner(partition: 3, epoch: 2, member: "member-b").claimEvent(key: "k"))
        #expect(ledger.isFenced)
        #expect(
            ledger.claimNeeded(on: 3, member: "member-a") == LedgerOwner(partition: 3, epoch: 3, member: "member-a"))
    }

    @Test("of two claims of one epoch, the one the partition holds first wins; the other is not adopted")
    func firstClaimOfAnEpochWins() throws {
        var ledger = Ledger()
        let a = LedgerOwner(partition: 0, epoch: 1, member: "member-a")
        let b = LedgerOwner(partition: 0, epoch: 1, member: "member-b")
        try ledger.apply(b.claimEvent(key: "k"))
        #expect(throws: Ledger.ApplyError.self) { try ledger.apply(a.claimEvent(key: "k")) }
        let adopted = ledger.adopt(a)
        #expect(!adopted)
        #expect(ledger.writer == nil)
    }

    @Test("the claim's record is the payments stage's, keyed to land on the claimed partition")
    func claimEnvelope() throws {
        let claim = LedgerOwner(partition: 2, epoch: 4, member: "member-a")
        let envelope = claim.claimEnvelope(time: Date(timeIntervalSince1970: 0)) { key in
            Int32(Int(String(key.last!))! % 3)
        }
        #expect(envelope.source == PipelineSource.payments)
        #expect(envelope.userID == "partition-owner.2.2")
        let event = try LedgerEvent.decode(from: envelope)
        #expect(event.kind == .ownerClaimed)
        #expect(event.owner == "2/4/member-a")
    }
}
