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
    /// Not SiriKit's: a payment of a payment request that is not open for this payer (paid,
    /// declined, being paid by another payment, or another payer's). A request is paid at
    /// most once, and a second payment of it says so in its own code.
    case failurePaymentRequestNotPayable

    /// Whether the intent ends here (nothing more will be published for it).
    public var isFinal: Bool { self != .ready && self != .inProgress }
}
