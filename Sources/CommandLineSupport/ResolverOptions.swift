public import ArgumentParser
public import IntentResolution

/// How the resolver is configured: the currencies and limits, and the messaging
/// services users may name. The resolve worker and `intentctl replay resolve`
/// read the same flags and environment, so a replay decides as the worker did.
public struct ResolverOptions: ParsableArguments {
    public init() {}

    @OptionGroup public var amounts: AmountOptions

    @Option(
        help: ArgumentHelp(
            "Messaging services users may name, comma-separated. Default: $INTENT_MESSAGING_SERVICES, else sms,chat.",
            valueName: "list"))
    public var messagingServices: String?

    public func resolver() throws -> IntentResolver {
        IntentResolver(
            amounts: try amounts.policy(),
            messagingServices: Secrets.list(messagingServices, variable: "INTENT_MESSAGING_SERVICES") ?? [
                "sms", "chat",
            ])
    }
}
