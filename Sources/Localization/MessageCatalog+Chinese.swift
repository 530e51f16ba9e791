import Intents

extension MessageCatalog {
    /// Simplified Chinese (`zh`, `zh-Hans-CN`).
    public static let chinese = MessageCatalog(
        language: "zh",
        sentences: [
            .sendMessageConfirm: "发送给{recipients}：“{content}”？",
            .searchingMessages: "正在搜索你的消息。",
            .markMessagesConfirm: "将 {count} 条消息标记为{attribute}？",
            .serviceUnavailable: "{service}暂时无法使用。",
            .amountMissing: "金额是多少？",
            .noPaymentAccount: "请先在应用中开通支付。",
            .paymentDetailsUnverified: "请在应用中验证你的支付信息。",
            .currencyUnsupported: "不支持{currency}。",
            .amountBelowMinimum: "最低金额为{minimum}。",
            .amountAboveMaximum: "最高金额为{maximum}。",
            .amountTooPrecise: "{currency}金额最多保留 {digits} 位小数。",
            .counterpartyCannotReceive: "{name}无法收款。",
            .cannotPaySelf: "不能向自己付款。",
            .requestPaymentConfirm: "向{name}（{account}）收取{amount}？",
            .paymentRequestNotOpen: "该收款请求不是这个金额，或已不再有效。",
            .insufficientBalance: "你的余额为{balance}。",
            .sendPaymentConfirm: "向{name}（{account}）付款{amount}？",
            .paymentSent: "已付款{amount}。",
            .paymentRequested: "已发起收款{amount}。",
            .paymentDeclinedByUser: "好的，不付款了。",
            .confirmationExpired: "确认已超时，未付款。",
            .confirmationMismatch: "该确认与这笔付款不符，未付款。",
            .payeeCannotReceive: "对方无法收款。",
            .payeeAccountChanged: "你确认后对方的收款账户已变更，未付款。",
            .notEnoughMoney: "你的余额不足。",
            .nothingSent: "未付款（{reason}）。",
            .messageSending: "正在发送…",
            .messageDone: "完成。",
            .messagesFound: "找到 {count} 条消息。",
            .noSuchMessage: "没有这条消息：{ids}。",
            .messageFailed: "操作未成功（{code}）。",
        ])
}
