import IntentResolution
import Intents
import Testing

@Suite("Amount resolution")
struct AmountPolicyTests {
    let resolver = IntentResolver(amounts: try! AmountPolicy.parse("CNY:0.01:50000,RUB:1:500000,JPY:1:1000000"))

    func resolveAmount(_ currencyAmount: CurrencyAmount?) -> ParameterResolution? {
        let report = resolver.resolve(
            IntentRequested(
                turn: 1,
                intent: .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: currencyAmount))),
            contacts: sampleBook)
        return parameter(report, "currencyAmount")
    }

    @Test("a supported amount within the limits is success")
    func success() {
        #expect(resolveAmount(amount("100", "CNY"))?.outcome == .success)
        #expect(resolveAmount(amount("50000.00", "CNY"))?.outcome == .success)
        #expect(resolveAmount(amount("0.01", "CNY"))?.outcome == .success)
    }

    @Test("a missing amount needs a value")
    func missing() {
        #expect(resolveAmount(nil)?.outcome == .needsValue)
    }

    @Test("an unsupported currency is unsupported, with the reason and the supported alternatives")
    func unsupportedCurrency() throws {
        let result = try #require(resolveAmount(amount("10", "USD")))
        #expect(result.outcome == .unsupported)
        #expect(result.reason == "paymentsCurrencyUnsupported")
        #expect(result.alternatives == ["CNY", "JPY", "RUB"])
    }

    @Test("below the minimum and above the maximum are unsupported with the limit as alternative")
    func limits() throws {
        let below = try #require(resolveAmount(amount("0.50", "RUB")))
        #expect(below.outcome == .unsupported)
        #expect(below.reason == "paymentsAmountBelowMinimum")
        #expect(below.alternatives == ["1 RUB"])
        let zero = try #require(resolveAmount(amount("0", "CNY")))
        #expect(zero.reason == "paymentsAmountBelowMinimum")
        let above = try #require(resolveAmount(amount("50000.01", "CNY")))
        #expect(above.reason == "paymentsAmountAboveMaximum")
        #expect(above.alternatives == ["50000 CNY"])
    }

    @Test("more fraction digits than the currency has are unsupported")
    func precision() {
        #expect(resolveAmount(amount("1.5", "JPY"))?.reason == "invalidAmountPrecision")
        #expect(resolveAmount(amount("1.001", "CNY"))?.reason == "invalidAmountPrecision")
        #expect(resolveAmount(amount("1.000", "CNY"))?.outcome == .success)
    }

    @Test("configuration errors are explained")
    func configuration() {
        // The last three: a minimum finer than the currency's ISO 4217 minor units, an unknown code.
        for text in [
            "", "CNY", "CNY:1", "cny:1:2", "CNY:5:1", "CNY:a:1", "CNYX:1:2", "CNY:0.001:5", "JPY:0.5:9", "XYZ:1:2",
        ] {
            #expect(throws: AmountPolicy.ParseError.self, "\(text)") { try AmountPolicy.parse(text) }
        }
        let policy = try? AmountPolicy.parse(" USD:0.01:100 , EUR:0.01:200 ")
        #expect(policy?.supportedCurrencies == ["EUR", "USD"])
        #expect(AmountPolicy.default.supportedCurrencies == ["CNY", "EUR", "GBP", "RUB", "USD"])
        #expect((try? AmountPolicy.parse("KWD:0.001:100,JPY:1:1000"))?.supportedCurrencies == ["JPY", "KWD"])
    }
}
