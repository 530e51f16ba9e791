import Intents
import Payments
import Testing

/// What `intentctl ledger` does, decided from what the topics hold (``LedgerOperatorPlan``):
/// it writes, says it is done, or refuses naming what is in the way; never nothing silently.
@Suite("Ledger operator: open, close, deposit")
struct LedgerOperatorPlanTests {
    /// Bob is open at version 1 with bob@example.com; Carol closed at version 2.
    var directory: AccountDirectory {
        var directory = AccountDirectory()
        directory.apply(LedgerEvent.opening(userID: "bob", handles: ["bob@example.com"])[0])
        directory.apply(LedgerEvent.opening(userID: "carol", handles: ["carol@example.com"])[0])
        directory.apply(LedgerEvent.closing(userID: "carol", version: 2))
        return directory
    }

    func refusal(_ plan: Result<LedgerOperatorPlan.Step, LedgerOperatorPlan.Refusal>) -> String? {
        if case .failure(let refusal) = plan { return refusal.description }
        return nil
    }

    func written(_ plan: Result<LedgerOperatorPlan.Step, LedgerOperatorPlan.Refusal>) -> LedgerEvent? {
        if case .success(.write(let event)) = plan { return event }
        return nil
    }

    /// `open-account` against ``directory``.
    func open(
        _ user: String, _ handles: [String], verified: Bool = true, replacing: Bool = false
    ) -> Result<LedgerOperatorPlan.Step, LedgerOperatorPlan.Refusal> {
        LedgerOperatorPlan.opening(
            userID: user, handles: handles, verified: verified, replacing: replacing, directory: directory)
    }

    @Test("opening: new at version 1, after a close at the next version; a taken handle is refused by name")
    func opening() throws {
        let new = try #require(written(open("dave", ["dave@example.com"])))
        #expect(new.kind == .accountOpened)
        #expect(new.accountVersion == 1)
        #expect(new.handles == ["dave@example.com"])
        let reopened = written(open("carol", ["carol@example.com"]))
        #expect(reopened?.accountVersion == 3)
        let taken = try #require(refusal(open("mallory", ["Bob@Example.com"])))
        #expect(taken.contains("Bob@Example.com is taken"), "\(taken)")
        #expect(taken.contains("account of bob"), "\(taken)")
    }

    @Test("opening again: the same contents write nothing; other contents are refused naming them, unless --replace")
    func openingAgain() throws {
        #expect(
            try open("bob", ["BOB@example.com"]).get()
                == .alreadyDone("the account of bob is already open as asked (version 1)"))
        let other = try #require(refusal(open("bob", ["bob@example.org"], verified: false)))
        #expect(other.contains("handles [bob@example.com], not [bob@example.org]"), "\(other)")
        #expect(other.contains("verified, not unverified"), "\(other)")
        #expect(other.contains("--replace (version 2)"), "\(other)")
        let replaced = written(open("bob", ["bob@example.org"], verified: false, replacing: true))
        #expect(replaced?.accountVersion == 2)
        #expect(replaced?.verified == false)
    }

    @Test("closing: only an open account with zero balances; a closed one is already done; none is refused")
    func closing() throws {
        let closed = written(LedgerOperatorPlan.closing(userID: "bob", directory: directory, balances: [.zero("CNY")]))
        #expect(closed == LedgerEvent.closing(userID: "bob", version: 2))
        let holding = try #require(
            refusal(
                LedgerOperatorPlan.closing(
                    userID: "bob", directory: directory,
                    balances: [.zero("CNY"), Money(currency: "USD", micros: 5_000_000)])))
        #expect(holding.contains("still holds 5 USD"), "\(holding)")
        #expect(
            try LedgerOperatorPlan.closing(userID: "carol", directory: directory, balances: []).get()
                == .alreadyDone("the account of carol is already closed (version 2)"))
        #expect(refusal(LedgerOperatorPlan.closing(userID: "zoe", directory: directory, balances: [])) != nil)
    }

    @Test("deposit: the id derives from the idempotency id; again is done; reused for other contents is refused")
    func deposit() throws {
        let amount = CurrencyAmount(amount: DecimalAmount("12.34")!, currency: "CNY")
        let first = try #require(
            written(
                LedgerOperatorPlan.deposit(
                    idempotencyID: "bank-1", userID: "bob", amount: amount, directory: directory, existing: nil)))
        #expect(first.id == LedgerEvent.depositID("bank-1"))
        #expect(first.id != LedgerEvent.depositID("bank-2"))
        #expect(first.amount == amount)
        #expect(
            try LedgerOperatorPlan.deposit(
                idempotencyID: "bank-1", userID: "bob",
                amount: CurrencyAmount(amount: DecimalAmount("12.340")!, currency: "CNY"), directory: directory,
                existing: first
            ).get() == .alreadyDone("deposit bank-1 of 12.340 CNY to bob is already in the ledger"))
        let reused = try #require(
            refusal(
                LedgerOperatorPlan.deposit(
                    idempotencyID: "bank-1", userID: "carol",
                    amount: CurrencyAmount(amount: DecimalAmount("99")!, currency: "CNY"), directory: directory,
                    existing: first)))
        #expect(reused.contains("user bob, not carol"), "\(reused)")
        #expect(reused.contains("amount 12.34 CNY, not 99 CNY"), "\(reused)")
    }

    @Test("deposit: refused for an amount its currency cannot hold, a non-positive one, or a user without an account")
    func depositRefusals() {
        func plan(_ text: String, _ currency: String, _ user: String = "bob") -> String? {
            refusal(
                LedgerOperatorPlan.deposit(
                    idempotencyID: "x", userID: user,
                    amount: CurrencyAmount(amount: DecimalAmount(text)!, currency: currency), directory: directory,
                    existing: nil))
        }
        #expect(plan("1.234", "CNY")?.contains("more fraction digits than CNY's 2 minor units") == true)
        #expect(plan("5.5", "JPY")?.contains("JPY's 0 minor units") == true)
        #expect(plan("1", "XYZ")?.contains("XYZ is not an ISO 4217 currency") == true)
        #expect(plan("0", "CNY")?.contains("not a positive amount") == true)
        #expect(plan("1", "CNY", "carol")?.contains("carol has no open account") == true)
        #expect(plan("1.5", "KWD") == nil)
    }
}
