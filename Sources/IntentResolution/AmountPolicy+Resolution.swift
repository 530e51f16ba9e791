import Intents

extension AmountPolicy {
    /// SiriKit's currency-amount resolution.
    func resolve(_ amount: CurrencyAmount?, parameter: String) -> ParameterResolution {
        guard let amount else {
            return ParameterResolution(parameter: parameter, outcome: .needsValue, message: "how much?")
        }
        guard let violation = check(amount) else { return ParameterResolution(parameter: parameter, outcome: .success) }
        let (alternatives, message): ([String]?, String) =
            switch violation {
            case .currencyUnsupported(let supported):
                (supported, "\(amount.currency) is not supported; supported: \(supported.joined(separator: ", "))")
            case .belowMinimum(let minimum):
                (["\(minimum) \(amount.currency)"], "the minimum is \(minimum) \(amount.currency)")
            case .aboveMaximum(let maximum):
                (["\(maximum) \(amount.currency)"], "the maximum is \(maximum) \(amount.currency)")
            case .tooPrecise(let digits):
                (nil, "\(amount.currency) amounts have at most \(digits) fraction digits")
            }
        return ParameterResolution(
            parameter: parameter, outcome: .unsupported, reason: violation.reason, alternatives: alternatives,
            message: message)
    }
}
