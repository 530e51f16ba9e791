public import ArgumentParser
import Foundation
public import Intents

/// Currency limits, shared by the resolve, confirm and payments workers (one ConfigMap
/// entry, `INTENT_CURRENCIES`, gives all three the same rules).
public struct AmountOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "Supported currencies and limits as CODE:MIN:MAX,… Default: $INTENT_CURRENCIES, else CNY:0.01:50000,EUR:0.01:10000,GBP:0.01:10000,RUB:1:500000,USD:0.01:10000.",
            valueName: "list"))
    public var currencies: String?

    public func policy() throws -> AmountPolicy {
        do {
            return try (currencies ?? ProcessInfo.processInfo.environment["INTENT_CURRENCIES"]).map(AmountPolicy.parse)
                ?? .default
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
