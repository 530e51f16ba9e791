import Foundation
import IntentEvents
import Intents
import Payments
import PipelineAudit
import Testing

/// The integrity check without a broker: chains built here as a stage builds them.
@Suite("Record integrity: signatures and chains")
struct RecordIntegrityTests {
    static let keys = EventAuthenticator.generate(for: PipelineSource.all)

    /// A signed, chained record of the payments stage following `previous` on partition 0.
    static func record(
        _ id: String, offset: Int64, after previous: String, chained: Bool = true, supersedes: String? = nil
    ) -> (record: RecordIntegrity.Record, hash: String) {
        let event = LedgerEvent.deposit(
            id: id, userID: "alice", amount: CurrencyAmount(amount: DecimalAmount("1")!, currency: "CNY")
        )
        .envelope(source: PipelineSource.payments, time: Date(timeIntervalSince1970: 1_800_000_000))
        let value = event.encoded()
        let link = RecordChain.Link(source: PipelineSource.payments, previous: previous, supersedes: supersedes)
        let signature = RecordChain.signature(
            topic: "payments.ledger", partition: 0, link: link, value: value, keys: keys)!
        return (
            RecordIntegrity.Record(
                topic: "p.payments.ledger", role: "payments.ledger", partition: 0, offset: offset, value: value,
                signature: keys.signature(for: event), chainLink: chained ? link.headerValue : nil,
                chainSignature: chained ? RecordChain.headerValue(of: signature) : nil),
            signature.hex
        )
    }

    @Test("a link is signed over its documented form: the place, the link, and the value's SHA-256")
    func canonicalForm() {
        // SHA-256 of the bytes 01 02 03, from Python's hashlib.
        let digest = "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81"
        let plain = RecordChain.Link(source: "/workers/payments", previous: "p1", nonce: "n1")
        #expect(
            RecordChain.canonical(topic: "payments.ledger", partition: 3, link: plain, value: [1, 2, 3])
                == Array("intent-chain/v1\npayments.ledger\n3\n/workers/payments\np1\nn1\n\n\(digest)".utf8))
        let resent = RecordChain.Link(source: "/workers/payments", previous: "p1", nonce: "n1", supersedes: "s1")
        #expect(
            RecordChain.canonical(topic: "payments.ledger", partition: 11, link: resent, value: [1, 2, 3])
                == Array("intent-chain/v1\npayments.ledger\n11\n/workers/payments\np1\nn1\ns1\n\(digest)".utf8))
    }

    @Test("an outside source on the ledger or the responses is forged; on the confirmations, beyond the keys")
    func outsideSources() {
        // SECURITY.md, attack 49: a voice service's name, no signature, no chain.
        let event = LedgerEvent.deposit(
            id: "forged", userID: "alice", amount: CurrencyAmount(amount: DecimalAmount("1")!, currency: "CNY")
        ).envelope(source: "/voice/x", time: Date(timeIntervalSince1970: 1_800_000_000))
        func record(_ topic: String) -> RecordIntegrity.Record {
            RecordIntegrity.Record(
                topic: "p.\(topic)", role: topic, partition: 0, offset: 0, value: event.encoded(), signature: nil,
                chainLink: nil, chainSignature: nil)
        }
        let internalOnly: Set = ["p.payments.ledger", "p.intents.responses"]
        for topic in ["payments.ledger", "intents.responses"] {
            let report = RecordIntegrity.check([record(topic)], keys: Self.keys, internalOnly: internalOnly)
            #expect(report.findings.map(\.kind) == [.forged], "\(topic): \(report.findings)")
            #expect(report.unverifiable == 0)
        }
        let answers = RecordIntegrity.check(
            [record("intents.confirmations")], keys: Self.keys, internalOnly: internalOnly)
        #expect(answers.findings == [])
        #expect(answers.unverifiable == 1)
    }

    @Test("a record counts in the audit's money rules unless the workers refuse it too")
    func refusedByTheWorkers() {
        var checker = RecordIntegrity.Checker(keys: Self.keys)
        let first = Self.record("a", offset: 0, after: RecordChain.genesis)
        let genuine = checker.check(first.record)
        #expect(genuine)
        // Copied to another partition: its link signs the old place (forged, to the audit),
        // but its signature holds, and the workers, which check no chain, took it.
        var moved = Self.record("b", offset: 1, after: first.hash).record
        moved.partition = 1
        let movedCounts = checker.check(moved)
        #expect(movedCounts)
        // No signature: every worker refuses it.
        var unsigned = Self.record("c", offset: 2, after: first.hash).record
        unsigned.signature = nil
        let unsignedCounts = checker.check(unsigned)
        #expect(!unsignedCounts)
        #expect(checker.report().findings.map(\.kind) == [.forged, .forged])
    }

    @Test("a chain verifies; two writers continuing from one record are a fork, not a finding")
    func forks() {
        let first = Self.record("a", offset: 0, after: RecordChain.genesis)
        let second = Self.record("b", offset: 1, after: first.hash)
        let rival = Self.record("c", offset: 2, after: first.hash)  // another member, from the same end
        let third = Self.record("d", offset: 3, after: rival.hash)
        let report = RecordIntegrity.check([first.record, second.record, rival.record, third.record], keys: Self.keys)
        #expect(report.findings == [])
        #expect(report.forks == 1)
        #expect(report.chains == 1)
        #expect(report.verified == 4)
    }

    @Test("a stage record without a link is unchained; a link signed for another place is forged")
    func unchainedAndMoved() {
        let first = Self.record("a", offset: 0, after: RecordChain.genesis)
        let bare = Self.record("b", offset: 1, after: first.hash, chained: false)
        var moved = Self.record("c", offset: 2, after: first.hash).record
        moved.partition = 1  // copied to another partition: its link names partition 0
        let report = RecordIntegrity.check([first.record, bare.record, moved], keys: Self.keys)
        #expect(report.findings.map(\.kind) == [.unchained, .forged])
    }

    @Test("a period's first record may name one before the period; a later gap is still a deletion")
    func windows() {
        let first = Self.record("a", offset: 10, after: "0123abcd")
        let gap = Self.record("b", offset: 12, after: "feedbeef")
        let report = RecordIntegrity.check(
            [first.record, gap.record], keys: Self.keys, readFromWindow: ["p.payments.ledger"])
        #expect(report.findings.map(\.kind) == [.deleted])
        #expect(report.findings.first?.offset == 12)
        let whole = RecordIntegrity.check([first.record, gap.record], keys: Self.keys)
        #expect(whole.findings.map(\.kind) == [.deleted, .deleted])
    }

    @Test("a record after an attempt that never landed: a deletion, unless the signed resend names that attempt")
    func resends() {
        let first = Self.record("a", offset: 0, after: RecordChain.genesis)
        let lost = Self.record("b", offset: 99, after: first.hash)  // failed; never on the partition
        let after = Self.record("c", offset: 1, after: lost.hash)
        let gap = RecordIntegrity.check([first.record, after.record], keys: Self.keys)
        #expect(gap.findings.map(\.kind) == [.deleted])
        let resent = Self.record("b", offset: 2, after: after.hash, supersedes: lost.hash)
        let explained = RecordIntegrity.check([first.record, after.record, resent.record], keys: Self.keys)
        #expect(explained.findings == [])
    }
}
