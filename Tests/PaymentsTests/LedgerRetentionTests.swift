import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// Idempotency memory is bounded by a horizon of ledger time, and a ledger
/// rebuilt from its snapshot decides exactly as the one that wrote it.
@Suite("Ledger: bounded idempotency memory and snapshots")
struct LedgerRetentionTests {
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    /// Alice pays Bob 1 CNY an hour for `hours` hours (from hour `start`), each proposal answered at once.
    func payHourly(_ hours: Int, from start: Int = 0, _ ledger: inout Ledger) {
        for hour in start..<(start + hours) {
            let time = t0.addingTimeInterval(Double(hour) * 3600)
            let intentID = "h\(hour)"
            let proposal = confirmedEvent(pay("1"), intentID: intentID, time: time)
            _ = stage.process(
                key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: time)
            let (answer, answerSignature) = answerEvent(
                .confirmed, binding: bindingFor(pay("1"), intentID: intentID, time: time), intentID: intentID,
                time: time)
            _ = stage.process(
                key: "alice", value: answer.encoded(), signature: answerSignature, ledger: &ledger, now: time)
        }
    }

    @Test("with a horizon, what was decided before it is forgotten; open holds and balances are not")
    func boundedMemory() throws {
        var bounded = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        var unbounded = try fundedLedger()
        payHourly(72, &bounded)
        payHourly(72, &unbounded)
        #expect(unbounded.transfers.count == 72)
        // About a day (and the hour in progress) of decided transfers is remembered.
        #expect((24...26).contains(bounded.transfers.count), "\(bounded.transfers.count)")
        #expect(bounded.transfer(forIntent: "h0", of: "alice") == nil)
        #expect(bounded.transfer(forIntent: "h71", of: "alice")?.status == .posted)
        #expect(bounded.rememberedEventCount < unbounded.rememberedEventCount / 2)
        // Forgetting never touches money.
        #expect(bounded.availableBalance(of: "alice", "CNY") == unbounded.availableBalance(of: "alice", "CNY"))
        #expect(bounded.availableBalance(of: "alice", "CNY") == Money(cny("928")))
        // An open hold from the first hour is kept however old it gets.
        var held = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        let proposal = confirmedEvent(pay("5"), intentID: "open", time: t0)
        _ = stage.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &held, now: t0)
        payHourly(72, &held)
        #expect(held.transfer(forIntent: "open", of: "alice")?.status == .held)
    }

    @Test("an input older than half the horizon is refused as stale: nothing forgotten can be decided again")
    func staleInputRefused() throws {
        var ledger = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        payHourly(72, &ledger)
        // The first hour's proposal, replayed three days later: its transfer is forgotten, so it is refused.
        let replayed = confirmedEvent(pay("1"), intentID: "h0", time: t0)
        let result = stage.process(
            key: "alice", value: replayed.encoded(), signature: signature(replayed), ledger: &ledger,
            now: t0.addingTimeInterval(72 * 3600))
        #expect(result.rejected?.reason == .stale)
        #expect(ledger.transfer(forIntent: "h0", of: "alice") == nil, "no second hold")
    }

    @Test("a payee's credit that arrives hours late is recorded, once, and never again however late it comes back")
    func lateEffect() throws {
        var ledger = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        payHourly(72, &ledger)
        let hour = { (hours: Double) in t0.addingTimeInterval(hours * 3600) }
        // Posted at hour 55; its credit reaches Bob's member at hour 71 (a 16-hour outage).
        let credit = LedgerEvent(
            id: "credit-late", kind: .credit, userID: "bob", transferID: "t-late",
            entries: LedgerEntry.move(cny("50"), from: Ledger.clearing, to: Ledger.available("bob")),
            counterpartyUserID: "alice", amount: cny("50")
        ).envelope(source: PipelineSource.payments, time: hour(55))
        func deliver(at now: Date) -> StageResult {
            stage.process(key: "bob", value: credit.encoded(), signature: signature(credit), ledger: &ledger, now: now)
        }
        let before = ledger.availableBalance(of: "bob", "CNY")
        #expect(deliver(at: hour(71)).ledgerKinds == [.credit])
        // Redelivered within the horizon of its own time, after more hours of ledger time: still known.
        payHourly(9, from: 72, &ledger)
        #expect(deliver(at: hour(78)).ledgerKinds.isEmpty)
        // Past the horizon of its own time: refused as stale, not recorded again.
        payHourly(20, from: 81, &ledger)
        #expect(deliver(at: hour(100)).rejected?.reason == .stale)
        // (The hourly payments' own credits are sent as effects, not delivered here: only this one counts.)
        #expect(ledger.availableBalance(of: "bob", "CNY").micros - before.micros == Money(cny("50")).micros)
    }

    @Test("a ledger record re-appended after its id was forgotten is refused, not applied again")
    func forgottenRecordReplayed() throws {
        var ledger = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        // An operator's deposit as the followers apply it: dated, read from the ledger topic.
        let deposit = LedgerEvent.deposit(id: "deposit-bob-1", userID: "bob", amount: cny("100"))
        #expect(try ledger.apply(deposit, at: Timestamp(t0), checkingBalances: false))
        // Three days of payments: the deposit's id falls out of the ledger's memory.
        payHourly(72, &ledger)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("100")))
        // The same signed record appended to the topic again: not a second 100 CNY.
        let error = #expect(throws: Ledger.ApplyError.self) {
            try ledger.apply(deposit, at: Timestamp(t0), checkingBalances: false)
        }
        #expect(error?.reason == "beyondMemory", "\(String(describing: error))")
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("100")))
        // Within the horizon the ledger still knows the id: a copy is a no-op, as always.
        let recent = LedgerEvent.deposit(id: "deposit-bob-2", userID: "bob", amount: cny("5"))
        let now = Timestamp(t0.addingTimeInterval(71 * 3600))
        #expect(try ledger.apply(recent, at: now, checkingBalances: false))
        #expect(try ledger.apply(recent, at: now, checkingBalances: false) == false)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("105")))
    }

    @Test("an answer dated hours ahead is refused: no voice service moves a ledger's clock on to make it forget")
    func futureAnswerRefused() throws {
        var ledger = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        let proposal = confirmedEvent(pay("1"), intentID: "ahead", time: t0)
        _ = stage.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        let binding = bindingFor(pay("1"), intentID: "ahead", time: t0)
        // Twelve hours ahead: inside the old window (half the horizon), far past clock skew.
        let (ahead, aheadSignature) = answerEvent(
            .confirmed, binding: binding, intentID: "ahead", time: t0.addingTimeInterval(12 * 3600 - 60))
        let refused = stage.process(
            key: "alice", value: ahead.encoded(), signature: aheadSignature, ledger: &ledger, now: t0)
        #expect(refused.rejected?.reason == .stale)
        #expect(ledger.transfer(forIntent: "ahead", of: "alice")?.status == .held)
        #expect(ledger.watermark.map { $0 <= Timestamp(t0.addingTimeInterval(30)) } ?? true)
        // The same answer as the user's clock dates it (within clock skew) posts.
        let (onTime, onTimeSignature) = answerEvent(
            .confirmed, binding: binding, intentID: "ahead", time: t0.addingTimeInterval(20))
        let posted = stage.process(
            key: "alice", value: onTime.encoded(), signature: onTimeSignature, ledger: &ledger, now: t0)
        #expect(posted.ledgerKinds == [.post], "\(posted)")
    }

    @Test("a ledger restored from its snapshot bytes holds the same state and decides the same")
    func snapshotRoundTrip() throws {
        var ledger = try fundedLedger(idempotencyHorizon: .seconds(24 * 3600))
        payHourly(30, &ledger)
        let open = confirmedEvent(pay("7"), intentID: "open", time: t0.addingTimeInterval(30 * 3600))
        _ = stage.process(
            key: "alice", value: open.encoded(), signature: signature(open), ledger: &ledger,
            now: t0.addingTimeInterval(30 * 3600))
        var restored = try Ledger(snapshotBytes: ledger.snapshotBytes())
        #expect(restored.transfers == ledger.transfers)
        #expect(restored.requests == ledger.requests)
        #expect(restored.allBalances.map(\.money) == ledger.allBalances.map(\.money))
        #expect(restored.rememberedEventCount == ledger.rememberedEventCount)
        #expect(restored.watermark == ledger.watermark)
        #expect(restored.idempotencyHorizon == ledger.idempotencyHorizon)
        #expect(restored.accounts == ledger.accounts)
        // The same next decisions, byte for byte, on both.
        let later = t0.addingTimeInterval(31 * 3600)
        let (answer, answerSignature) = answerEvent(
            .confirmed, binding: bindingFor(pay("7"), intentID: "open", time: t0.addingTimeInterval(30 * 3600)),
            intentID: "open", time: later)
        let first = stage.process(
            key: "alice", value: answer.encoded(), signature: answerSignature, ledger: &ledger, now: later)
        let second = stage.process(
            key: "alice", value: answer.encoded(), signature: answerSignature, ledger: &restored, now: later)
        #expect(!first.events.isEmpty)
        #expect(first.events.map { $0.event.encoded() } == second.events.map { $0.event.encoded() })
        // Another format version, cut short, or with bytes left over: refused, not misread.
        let bytes = ledger.snapshotBytes()
        var otherVersion = bytes
        otherVersion[4] = 9
        #expect(throws: Ledger.SnapshotError.unsupportedVersion(9)) { try Ledger(snapshotBytes: otherVersion) }
        #expect(throws: Ledger.SnapshotError.self) { try Ledger(snapshotBytes: Array(bytes.dropLast(3))) }
        #expect(throws: Ledger.SnapshotError.self) { try Ledger(snapshotBytes: bytes + [0]) }
        #expect(throws: Ledger.SnapshotError.self) { try Ledger(snapshotBytes: Array("{\"version\":1}".utf8)) }
    }
}
