import Intents

extension MessageCatalog {
    /// Russian (`ru`, `ru-RU`).
    public static let russian = MessageCatalog(
        language: "ru",
        sentences: [
            .sendMessageConfirm: "Отправить «{content}»? Получатели: {recipients}.",
            .searchingMessages: "Ищу ваши сообщения.",
            .markMessagesConfirm: "Отметить сообщения ({count}) как «{attribute}»?",
            .serviceUnavailable: "{service} сейчас недоступен.",
            .amountMissing: "Какую сумму?",
            .noPaymentAccount: "Сначала подключите платежи в приложении.",
            .paymentDetailsUnverified: "Подтвердите платёжные данные в приложении.",
            .currencyUnsupported: "Валюта {currency} не поддерживается.",
            .amountBelowMinimum: "Минимальная сумма — {minimum}.",
            .amountAboveMaximum: "Максимальная сумма — {maximum}.",
            .amountTooPrecise: "Сумма в {currency} — не более {digits} знаков после запятой.",
            .counterpartyCannotReceive: "Получатель {name} не может принимать платежи.",
            .cannotPaySelf: "Нельзя перевести деньги самому себе.",
            .requestPaymentConfirm: "Запросить {amount}? Плательщик: {name} ({account}).",
            .paymentRequestNotOpen: "Этот запрос на оплату закрыт или на другую сумму.",
            .insufficientBalance: "Ваш баланс: {balance}.",
            .sendPaymentConfirm: "Перевести {amount}? Получатель: {name} ({account}).",
            .paymentSent: "Переведено {amount}.",
            .paymentRequested: "Запрошено {amount}.",
            .paymentDeclinedByUser: "Хорошо, не отправляю.",
            .confirmationExpired: "Время подтверждения истекло, ничего не отправлено.",
            .confirmationMismatch: "Подтверждение не совпадает с этим платежом, ничего не отправлено.",
            .payeeCannotReceive: "Получатель не может принимать платежи.",
            .payeeAccountChanged: "Счёт получателя изменился после подтверждения, ничего не отправлено.",
            .notEnoughMoney: "Недостаточно средств.",
            .nothingSent: "Ничего не отправлено ({reason}).",
            .messageSending: "Отправляю…",
            .messageDone: "Готово.",
            .messagesFound: "Найдено сообщений: {count}.",
            .noSuchMessage: "Нет такого сообщения: {ids}.",
            .messageFailed: "Не получилось ({code}).",
        ])
}
