/// SiriKit's resolution outcomes for a person parameter, as the resolver decides them.
public enum ResolutionOutcome: String, Codable, Sendable, Hashable {
    /// One strong match.
    case success
    /// Several plausible people; ask the user to pick (at most three offered).
    case disambiguation
    /// Only a weak match; ask the user to confirm it.
    case confirmationRequired
    /// Nothing was said.
    case needsValue
    /// Nobody in the contacts matches.
    case unsupported
}

/// The resolver's answer: the outcome and the candidate contact ids, best first.
public struct Resolution: Sendable, Hashable {
    public var outcome: ResolutionOutcome
    /// Exactly one for success and confirmationRequired, two or three for
    /// disambiguation, none otherwise.
    public var candidates: [String]

    public init(outcome: ResolutionOutcome, candidates: [String]) {
        self.outcome = outcome
        self.candidates = candidates
    }
}
