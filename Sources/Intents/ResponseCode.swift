/// SiriKit's intent response codes, as the confirm and handle stages answer.
/// `ready` is the confirm stage's "can be done"; the others end an intent.
public enum ResponseCode: String, Codable, Sendable, Hashable, CaseIterable {
    case ready
    case success
    case inProgress
    case failure
    case failureRequiringAppLaunch
    case failureInsufficientFunds
    case failurePaymentsAmountBelowMinimum
    case failurePaymentsAmountAboveMaximum
    case failurePaymentsCurrencyUnsupported
    case failureNoBankAccount
    case failureCredentialsUnverified
    case failureMessageServiceNotAvailable

    /// Whether the intent ends here (nothing more will be published for it).
    public var isFinal: Bool { self != .ready && self != .inProgress }
}
