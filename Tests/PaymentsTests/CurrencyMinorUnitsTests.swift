import Intents
import Payments
import Testing

/// Money enters only in amounts its currency can hold (ISO 4217 minor units).
@Suite("Currency minor units")
struct CurrencyMinorUnitsTests {
    func amount(_ text: String, _ currency: String) -> CurrencyAmount {
        CurrencyAmount(amount: DecimalAmount(text)!, currency: currency)
    }

    @Test("the table's digits: 2 for CNY, EUR, USD, RUB; 0 for JPY, KRW; 3 for KWD, BHD, JOD; unknown codes none")
    func table() {
        for code in ["CNY", "EUR", "USD", "RUB"] { #expect(CurrencyMinorUnits.of(code) == 2, "\(code)") }
        for code in ["JPY", "KRW"] { #expect(CurrencyMinorUnits.of(code) == 0, "\(code)") }
        for code in ["KWD", "BHD", "JOD"] { #expect(CurrencyMinorUnits.of(code) == 3, "\(code)") }
        #expect(CurrencyMinorUnits.of("XYZ") == nil)
    }

    @Test("finer than the minor units or an unknown currency is refused; trailing zeros are not finer")
    func violations() {
        #expect(CurrencyMinorUnits.violation(of: amount("1.23", "CNY")) == nil)
        #expect(CurrencyMinorUnits.violation(of: amount("1.230", "CNY")) == nil)
        #expect(CurrencyMinorUnits.violation(of: amount("5", "JPY")) == nil)
        #expect(CurrencyMinorUnits.violation(of: amount("1.234", "KWD")) == nil)
        #expect(
            CurrencyMinorUnits.violation(of: amount("1.234", "CNY"))
                == .tooPrecise(amount("1.234", "CNY"), minorUnits: 2))
        #expect(CurrencyMinorUnits.violation(of: amount("5.5", "JPY"))?.reason == "invalidAmountPrecision")
        #expect(CurrencyMinorUnits.violation(of: amount("1.2345", "KWD")) != nil)
        #expect(CurrencyMinorUnits.violation(of: amount("1", "XYZ")) == .unknownCurrency("XYZ"))
    }

    @Test("the ledger refuses a deposit its currency cannot hold, whoever wrote it")
    func ledgerRefusesFineDeposits() throws {
        var ledger = Ledger()
        for (id, money) in [
            ("fine", amount("1.234", "CNY")), ("yen", amount("5.5", "JPY")), ("odd", amount("1", "XYZ")),
        ] {
            let deposit = LedgerEvent.deposit(idempotencyID: id, userID: "alice", amount: money)
            #expect(
                throws: Ledger.ApplyError.amountNotExpressible(
                    event: deposit.id, CurrencyMinorUnits.violation(of: money)!)
            ) {
                try ledger.apply(deposit)
            }
        }
        #expect(ledger.allBalances.isEmpty)
        #expect(
            try ledger.apply(LedgerEvent.deposit(idempotencyID: "ok", userID: "alice", amount: amount("1.23", "CNY"))))
    }
}
