import IntentEvents
import Intents
import Payments
import Testing

/// Every way the ledger refuses an event, each with its typed reason and its
/// machine-readable name, and the state left as it was.
@Suite("The ledger's refusals, one by one")
struct LedgerRefusalTests {
    /// Alice funded with 1,000 CNY and holding 100 CNY for Bob (transfer t1).
    static func ledgerWithHold() throws -> Ledger {
        var ledger = try fundedLedger()
        try ledger.apply(
            LedgerEvent(
                id: "h1", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
                entries: LedgerEntry.move(cny("100"), from: Ledger.available("alice"), to: Ledger.held("alice")),
                counterpartyUserID: "bob", amount: cny("100")))
        return ledger
    }

    /// A post of t1 moving `amount` from Alice's hold to `account` (a post moves it to clearing).
    static func post(_ amount: String, to account: String = Ledger.clearing, id: String = "p1") -> LedgerEvent {
        LedgerEvent(
            id: id, kind: .post, userID: "alice", transferID: "t1",
            entries: LedgerEntry.move(cny(amount), from: Ledger.held("alice"), to: account))
    }

    static func rub(_ amount: String) -> CurrencyAmount {
        CurrencyAmount(amount: DecimalAmount(amount)!, currency: "RUB")
    }

    /// Alice also holds 100 RUB for Bob (transfer t9): a RUB post of t1 then
    /// has held money to move, and is refused for its currency alone.
    static let rubleHold = [
        LedgerEvent.deposit(id: "deposit-rub", userID: "alice", amount: rub("100")),
        LedgerEvent(
            id: "h9", kind: .hold, userID: "alice", intentID: "i9", transferID: "t9",
            entries: LedgerEntry.move(rub("100"), from: Ledger.available("alice"), to: Ledger.held("alice")),
            counterpartyUserID: "bob", amount: rub("100")),
    ]

    /// Alice's hold of 1 CNY for Bob (transfer `t-<id>`) whose entries move `amount` between the
    /// accounts given.
    static func holdByAlice(_ id: String, moving amount: CurrencyAmount, from source: String, to destination: String)
        -> LedgerEvent
    {
        LedgerEvent(
            id: id, kind: .hold, userID: "alice", intentID: "i-\(id)", transferID: "t-\(id)",
            entries: LedgerEntry.move(amount, from: source, to: destination), counterpartyUserID: "bob",
            amount: cny("1"))
    }

    /// A deposit of 5 CNY to Bob written with the two entries given (account, side, amount).
    static func depositToBob(
        _ id: String, _ first: (String, LedgerEntry.Side, CurrencyAmount),
        _ second: (String, LedgerEntry.Side, CurrencyAmount)
    ) -> LedgerEvent {
        LedgerEvent(
            id: id, kind: .deposit, userID: "bob",
            entries: [first, second].map { LedgerEntry(account: $0.0, side: $0.1, amount: $0.2) }, amount: cny("5"))
    }

    static let cases: [(name: String, event: LedgerEvent, refusal: Ledger.ApplyError, reason: String)] = [
        (
            "unbalanced",
            LedgerEvent(
                id: "u", kind: .deposit, userID: "bob",
                entries: [LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("5"))]),
            .unbalanced("u"), "unbalanced"
        ),
        (
            "overdraft",
            LedgerEvent(
                id: "h-big", kind: .hold, userID: "alice", intentID: "i2", transferID: "t2",
                entries: LedgerEntry.move(cny("950"), from: Ledger.available("alice"), to: Ledger.held("alice")),
                counterpartyUserID: "bob", amount: cny("950")),
            .negativeBalance(Ledger.available("alice")), "negativeBalance"
        ),
        (
            "post of an unknown transfer",
            LedgerEvent(id: "p-x", kind: .post, userID: "alice", transferID: "nope"),
            .unknownTransfer("nope"), "unknownTransfer"
        ),
        (
            "post of another amount", post("99"), .transferMismatch(event: "p1", transfer: "t1"),
            "transferMismatch"
        ),
        (
            "post straight to someone's account, past clearing", post("100", to: Ledger.available("mallory")),
            .transferMismatch(event: "p1", transfer: "t1"), "transferMismatch"
        ),
        (
            "post in another currency",
            LedgerEvent(
                id: "p1", kind: .post, userID: "alice", transferID: "t1",
                entries: LedgerEntry.move(rub("100"), from: Ledger.held("alice"), to: Ledger.clearing)),
            .transferMismatch(event: "p1", transfer: "t1"), "transferMismatch"
        ),
        (
            "a deposit to someone else",
            LedgerEvent(
                id: "d-x", kind: .deposit, userID: "alice",
                entries: LedgerEntry.move(cny("5"), from: Ledger.available("bob"), to: Ledger.available("alice")),
                amount: cny("5")),
            .movementNotAllowed(event: "d-x", kind: "deposit"), "movementNotAllowed"
        ),
        (
            "a hold of another user's money",
            holdByAlice("h-y", moving: cny("1"), from: Ledger.available("bob"), to: Ledger.held("alice")),
            .movementNotAllowed(event: "h-y", kind: "hold"), "movementNotAllowed"
        ),
        (
            "a hold into an account whose name only starts like the payer's",
            holdByAlice(
                "h-z", moving: cny("1"), from: Ledger.available("alice"), to: Ledger.held("alice") + "/elsewhere"),
            .movementNotAllowed(event: "h-z", kind: "hold"), "movementNotAllowed"
        ),
        (
            "a hold of an amount other than its entries'",
            holdByAlice("h-w", moving: cny("2"), from: Ledger.available("alice"), to: Ledger.held("alice")),
            .movementNotAllowed(event: "h-w", kind: "hold"), "movementNotAllowed"
        ),
        (
            "two entries in two currencies",
            depositToBob("u2", (Ledger.funding, .debit, cny("5")), (Ledger.available("bob"), .credit, rub("5"))),
            .unbalanced("u2"), "unbalanced"
        ),
        (
            "two credits",
            depositToBob("u3", (Ledger.funding, .credit, cny("5")), (Ledger.available("bob"), .credit, cny("5"))),
            .unbalanced("u3"), "unbalanced"
        ),
        (
            "a zero second entry",
            depositToBob("z2", (Ledger.funding, .debit, cny("5")), (Ledger.available("bob"), .credit, cny("0"))),
            .nonPositiveAmount("z2"), "nonPositiveAmount"
        ),
        (
            "a hold without its transfer",
            LedgerEvent(
                id: "h-x", kind: .hold, userID: "alice", intentID: "i3",
                entries: LedgerEntry.move(cny("1"), from: Ledger.available("alice"), to: Ledger.held("alice")),
                counterpartyUserID: "bob", amount: cny("1")),
            .missingField(event: "h-x", fields: "transferID"), "missingField"
        ),
        (
            "a zero entry",
            LedgerEvent(
                id: "z", kind: .deposit, userID: "bob",
                entries: LedgerEntry.move(cny("0"), from: Ledger.funding, to: Ledger.available("bob")),
                amount: cny("0")),
            .nonPositiveAmount("z"), "nonPositiveAmount"
        ),
        (
            "a decision about an unknown request",
            LedgerEvent(id: "r-x", kind: .requestDeclined, userID: "bob", requestID: "pr-none"),
            .unknownRequest("pr-none"), "unknownRequest"
        ),
    ]

    @Test("each refusal is typed, named, and changes nothing", arguments: cases.indices)
    func refusal(_ index: Int) throws {
        let (name, event, expected, reason) = Self.cases[index]
        var ledger = try Self.ledgerWithHold()
        for event in Self.rubleHold { try ledger.apply(event) }
        let before = ledger.allBalances.map { "\($0.account) \($0.money)" }
        #expect(throws: expected, "\(name)") { try ledger.apply(event) }
        #expect(expected.reason == reason)
        #expect(!ledger.contains(eventID: event.id), "\(name)")
        #expect(ledger.allBalances.map { "\($0.account) \($0.money)" } == before, "\(name)")
        #expect(ledger.transfers["t1"]?.status == .held, "\(name)")
    }

    @Test("a ledger record whose kind lacks a field it needs is dead-lettered with what it lacks")
    func malformedRecordIsRefusedAtDecoding() throws {
        let hold = LedgerEvent(
            id: "h-x", kind: .hold, userID: "alice", intentID: "i3",
            entries: LedgerEntry.move(cny("1"), from: Ledger.available("alice"), to: Ledger.held("alice")),
            counterpartyUserID: "bob", amount: cny("1"))
        let envelope = hold.envelope(source: PipelineSource.payments, time: t0)
        let value = envelope.encoded()
        do throws(EventDecodingError) {
            _ = try LedgerRecord.decode(
                key: "alice", value: value,
                signature: stageKeys.signature(forCanonical: value, source: envelope.source),
                keys: stageKeys)
            Issue.record("a hold without its transfer was accepted")
        } catch {
            #expect(error.reason == .schemaInvalid)
            #expect(error.field == "$.data")
            #expect(error.message.contains("transferID"), "\(error)")
        }
    }

    @Test("the exact post goes through after all of them")
    func exactPost() throws {
        var ledger = try Self.ledgerWithHold()
        try ledger.apply(Self.post("100"))
        #expect(ledger.transfers["t1"]?.status == .posted)
        #expect(ledger.balance(Ledger.clearing, "CNY") == Money(cny("100")))
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"), "Bob's member credits him")
    }
}
