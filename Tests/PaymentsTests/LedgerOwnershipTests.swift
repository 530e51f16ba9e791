import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// Fencing by claims in the ledger (issue 28, point 9): the rule every reader applies
/// (``LedgerOwnership``), the deciding ledger's view of it, and the stamp the payments
/// stage puts on what it records.
@Suite("Ledger partition owners")
struct LedgerOwnershipTests {
    static let first = LedgerOwner(partition: 2, epoch: 1, member: "member-a")
    static let second = LedgerOwner(partition: 2, epoch: 2, member: "member-b")

    static func deposit(_ id: String, stampedWith owner: LedgerOwner?) -> LedgerEvent {
        var event = LedgerEvent.deposit(id: id, userID: "alice", amount: cny("5"))
        event.owner = owner?.description
        return event
    }

    @Test("a claim's text round-trips, and malformed claims are not claims")
    func claimText() {
        #expect(LedgerOwner(Self.first.description) == Self.first)
        #expect(Self.first.description == "2/1/member-a")
        // Letters and digits outside ASCII, a combining mark, a CR LF pair (one character):
        // not a member's text, whether read by bytes or by characters.
        let notASCII = ["2/1/mémber", "2/1/a\u{301}", "2/\u{301}1/a", "\u{662}/1/a", "2/1/a\r\n", "2/1/a_b"]
        for text in ["", "2/1", "2/0/a", "-1/1/a", "x/1/a", "2/1/", "2/1/a/b", "2/1/a b"] + notASCII {
            #expect(LedgerOwner(text) == nil, "\(text)")
        }
        #expect(LedgerOwner.next(after: nil, partition: 4, member: "m").epoch == 1)
        #expect(LedgerOwner.next(after: Self.second, partition: 2, member: "m").epoch == 3)
    }

    @Test("a claim key lands on its partition, whatever the count")
    func claimKeys() {
        // A stand-in partitioner: the key's last digit modulo the count.
        for count in 1...7 {
            for partition in 0..<Int32(count) {
                let key = LedgerOwner.claimKey(partition: partition) { key in
                    Int32(Int(String(key.last!))! % count)
                }
                #expect(Int(String(key.last!))! % count == Int(partition))
            }
        }
    }

    @Test("events written under an overtaken claim count for nothing; unstamped ones are not fenced")
    func fencedWrites() throws {
        var ledger = try fundedLedger()
        try ledger.apply(Self.first.claimEvent(key: "k"))
        #expect(try ledger.apply(Self.deposit("under-first", stampedWith: Self.first)))
        try ledger.apply(Self.second.claimEvent(key: "k"))
        #expect(ledger.owners[2] == Self.second)
        let before = ledger.balance(Ledger.available("alice"), "CNY")
        #expect(throws: Ledger.ApplyError.self) {
            try ledger.apply(Self.deposit("late-first", stampedWith: Self.first))
        }
        #expect(ledger.balance(Ledger.available("alice"), "CNY") == before)
        #expect(try ledger.apply(Self.deposit("under-second", stampedWith: Self.second)))
        // The ledger operator's events carry no claim: they are not a partition owner's.
        #expect(try ledger.apply(Self.deposit("operator", stampedWith: nil)))
        // A stamp naming a partition nobody has claimed, or not parsing, is refused too.
        let elsewhere = LedgerOwner(partition: 5, epoch: 1, member: "member-a")
        #expect(throws: Ledger.ApplyError.self) { try ledger.apply(Self.deposit("elsewhere", stampedWith: elsewhere)) }
        var garbled = Self.deposit("garbled", stampedWith: nil)
        garbled.owner = "not a claim"
        #expect(throws: Ledger.ApplyError.self) { try ledger.apply(garbled) }
    }

    /// The latest claims are matched by their text (no parse per stamped event): only a
    /// claim whose text parses back to it may match, and a stamp written otherwise than the
    /// claim's own text is still judged by what it parses to.
    @Test("a stamp counts exactly when it parses to its partition's latest claim")
    func stampsMatchByParse() {
        var ownership = LedgerOwnership()
        // Taken directly (as a deciding member adopts its claim), with a member name whose
        // text does not parse back: events stamped with that text are not the claim's.
        let unparsable = LedgerOwner(partition: 1, epoch: 1, member: "a/b")
        ownership.take(unparsable)
        #expect(ownership.refusal(of: Self.deposit("slash", stampedWith: unparsable)) != nil)
        ownership.take(Self.first)
        #expect(ownership.refusal(of: Self.deposit("first", stampedWith: Self.first)) == nil)
        // Another spelling of the same claim (a leading zero) parses to it, so it counts.
        var respelled = Self.deposit("respelled", stampedWith: nil)
        respelled.owner = "02/1/member-a"
        #expect(ownership.refusal(of: respelled) == nil)
        // Overtaken: the first claim's text no longer counts.
        ownership.take(Self.second)
        #expect(ownership.refusal(of: Self.deposit("late", stampedWith: Self.first)) != nil)
        #expect(ownership.refusal(of: Self.deposit("second", stampedWith: Self.second)) == nil)
    }

    @Test("a claim must be newer than the partition's latest: a replayed or simultaneous one loses")
    func staleClaims() throws {
        var ownership = LedgerOwnership()
        #expect(ownership.admit(Self.second.claimEvent(key: "k")) == nil)
        let replayed = ownership.admit(Self.first.claimEvent(key: "k"))
        #expect(replayed?.reason == "staleClaim")
        let sameEpoch = LedgerOwner(partition: 2, epoch: 2, member: "member-c")
        #expect(ownership.admit(sameEpoch.claimEvent(key: "k"))?.reason == "staleClaim")
        #expect(ownership.owners[2] == Self.second)
        // Claims of other partitions are independent.
        #expect(ownership.admit(LedgerOwner(partition: 0, epoch: 1, member: "m").claimEvent(key: "k0")) == nil)
        var claimless = Self.first.claimEvent(key: "k")
        claimless.owner = nil
        var empty = Ledger()
        #expect(throws: Ledger.ApplyError.self) { try empty.apply(claimless) }
    }

    @Test("the deciding ledger knows when its writer is overtaken, also after a snapshot")
    func writerOvertaken() throws {
        var ledger = try fundedLedger()
        try ledger.apply(Self.first.claimEvent(key: "k"))
        ledger.writer = Self.first
        #expect(!ledger.isFenced)
        var restored = try Ledger(snapshotBytes: ledger.snapshotBytes())
        #expect(restored.owners == [2: Self.first])
        #expect(restored.writer == nil, "a writer is this process's, never in a snapshot")
        try restored.apply(Self.second.claimEvent(key: "k"))
        restored.writer = Self.first
        #expect(restored.isFenced)
        #expect(throws: Ledger.ApplyError.self) {
            try restored.apply(Self.deposit("late-first", stampedWith: Self.first))
        }
    }

    @Test("the payments stage stamps what it records with its claim")
    func stageStamps() throws {
        let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)
        var ledger = try fundedLedger()
        try ledger.apply(Self.first.claimEvent(key: "k"))
        ledger.writer = Self.first
        let proposal = confirmedEvent(pay("10"), intentID: "stamped")
        let result = stage.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        let recorded = try result.events(to: .ledger).map { try $0.decodeData(as: LedgerEvent.self) }
        #expect(recorded.map(\.kind) == [.hold])
        #expect(recorded.map(\.owner) == [Self.first.description])
        // Another member's claim read meanwhile: what this one decided is refused when read back.
        var reader = try fundedLedger()
        try reader.apply(Self.first.claimEvent(key: "k"))
        try reader.apply(Self.second.claimEvent(key: "k"))
        #expect(throws: Ledger.ApplyError.self) { try reader.apply(recorded[0]) }
    }
}
