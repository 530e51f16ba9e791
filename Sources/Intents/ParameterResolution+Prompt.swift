extension ParameterResolution {
    /// What to ask the user about this parameter, before a locale words it; nil when it
    /// needs no answer. The candidates are numbered, as the user picks them ("2) Юлия").
    /// One mapping for the resolve stage, which words the prompt event, and for any voice
    /// service that words it again in its own language.
    public var prompt: LocalizedMessage? {
        guard outcome.needsUser else { return nil }
        let names = (candidates ?? []).map(\.displayName)
        switch outcome {
        case .disambiguation where !names.isEmpty:
            let numbered = names.enumerated().map { "\($0.offset + 1)) \($0.element)" }
            return LocalizedMessage(.promptWhich, ["choices": .choices(numbered)])
        case .confirmationRequired where !names.isEmpty:
            return LocalizedMessage(.promptDidYouMean, ["name": .text(names[0])])
        case .needsValue where Self.personParameters.contains(parameter) || parameter.hasPrefix("recipients"):
            return LocalizedMessage(.promptWho)
        case .needsValue where parameter == "currencyAmount":
            return LocalizedMessage(.amountMissing)
        case .unsupported where reason == "noContactFound":
            return LocalizedMessage(.promptNoContact)
        case .unsupported:
            return LocalizedMessage(.promptUnsupported, ["reason": .text(reason ?? parameter)])
        default:
            return LocalizedMessage(.promptValue, ["parameter": .text(parameter)])
        }
    }

    /// Parameters that name one person.
    private static let personParameters: Set<String> = ["payee", "payer"]

    /// Records the question: its key and arguments, and `said`, its words in the user's locale.
    public mutating func ask(_ question: LocalizedMessage, saying said: String) {
        message = said
        messageKey = question.key
        messageArguments = question.arguments.isEmpty ? nil : question.arguments
    }
}
