/// "Send 100 yuan to 孙波 for dinner": SiriKit's `INSendPaymentIntent`.
public struct SendPaymentIntent: Codable, Sendable, Hashable {
    public var payee: Person?
    public var currencyAmount: CurrencyAmount?
    public var note: String?
    /// The pending payment request this pays, when the payer is answering one.
    public var paymentRequestID: String?

    public init(
        payee: Person? = nil, currencyAmount: CurrencyAmount? = nil, note: String? = nil,
        paymentRequestID: String? = nil
    ) {
        self.payee = payee
        self.currencyAmount = currencyAmount
        self.note = note
        self.paymentRequestID = paymentRequestID
    }
}

/// "Ask Dima for 500 rubles": SiriKit's `INRequestPaymentIntent`.
public struct RequestPaymentIntent: Codable, Sendable, Hashable {
    public var payer: Person?
    public var currencyAmount: CurrencyAmount?
    public var note: String?

    public init(payer: Person? = nil, currencyAmount: CurrencyAmount? = nil, note: String? = nil) {
        self.payer = payer
        self.currencyAmount = currencyAmount
        self.note = note
    }
}
