/// SiriKit's resolution result for one parameter.
public enum ParameterOutcome: String, Codable, Sendable, Hashable, CaseIterable {
    case success
    /// Several candidates; the user picks one (at most 3 offered).
    case disambiguation
    /// One plausible value that the user should confirm.
    case confirmationRequired
    /// The parameter is required and missing; ask for it.
    case needsValue
    /// The parameter is optional and absent.
    case notRequired
    /// The value cannot be used; `reason` says why.
    case unsupported

    /// Whether the user has to answer before the intent can go on.
    public var needsUser: Bool {
        switch self {
        case .success, .notRequired: false
        case .disambiguation, .confirmationRequired, .needsValue, .unsupported: true
        }
    }
}

/// A contact offered to the user in a disambiguation or confirmation.
public struct ContactCandidate: Codable, Sendable, Hashable {
    public var contactID: String
    public var displayName: String

    public init(contactID: String, displayName: String) {
        self.contactID = contactID
        self.displayName = displayName
    }
}

/// How one parameter resolved, as the prompt and resolved events carry it.
public struct ParameterResolution: Codable, Sendable, Hashable {
    /// The parameter's path in the intent: `payee`, `currencyAmount`, `recipients[1]`.
    public var parameter: String
    public var outcome: ParameterOutcome
    /// Best first; set for disambiguation (2 or 3) and confirmationRequired (1).
    public var candidates: [ContactCandidate]?
    /// Machine-readable, for unsupported: `noContactFound`, `handleNotOfContact`, `paymentsCurrencyUnsupported`,
    /// `paymentsAmountBelowMinimum`, `paymentsAmountAboveMaximum`, `invalidAmountPrecision`,
    /// `serviceUnavailable`, `invalidDateRange`.
    public var reason: String?
    /// Values the user could choose instead (supported currencies, the limit, services).
    public var alternatives: [String]?
    /// What the assistant asks about this parameter, in the user's locale, when it needs
    /// the user (the resolve stage words it; ``prompt``); otherwise a note for logs.
    public var message: String?
    /// The question by key and arguments, so a voice service or app can say it in its own language.
    public var messageKey: MessageKey?
    public var messageArguments: [String: MessageArgument]?

    public init(
        parameter: String, outcome: ParameterOutcome, candidates: [ContactCandidate]? = nil, reason: String? = nil,
        alternatives: [String]? = nil, message: String? = nil
    ) {
        self.parameter = parameter
        self.outcome = outcome
        self.candidates = candidates
        self.reason = reason
        self.alternatives = alternatives
        self.message = message
    }
}
