import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import Payments

/// Operator tools for the payments ledger: accounts and deposits (the
/// ledger's way in for money from outside).
struct LedgerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Open payment accounts and deposit money (writes ledger events).",
        subcommands: [OpenAccount.self]
    )

    struct OpenAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open-account",
            abstract: "Open a user's payment account, optionally with an opening deposit.",
            discussion: "Idempotent: the events' ids derive from the user, so running it twice changes nothing.")

        @Option(help: "The user.") var user: String
        @Option(name: .customLong("handle"), help: "A handle payers know the account by. Repeatable.")
        var handles: [String] = []
        @Option(help: ArgumentHelp("Opening deposit, e.g. \"1000 CNY\". Repeatable.", valueName: "AMOUNT CURRENCY"))
        var deposit: [String] = []
        @Flag(help: "Payment credentials not verified yet (payments answer failureCredentialsUnverified).")
        var unverified = false
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            var events = [
                LedgerEvent(
                    id: EventID.derived("ledger", "accountOpened", user), kind: .accountOpened, userID: user,
                    handles: handles, verified: !unverified)
            ]
            for text in deposit {
                let parts = text.split(separator: " ")
                guard parts.count == 2, let amount = DecimalAmount(String(parts[0])), parts[1].count == 3 else {
                    throw ValidationError("Bad deposit \"\(text)\": expected e.g. \"1000 CNY\".")
                }
                let money = CurrencyAmount(amount: amount, currency: parts[1].uppercased())
                events.append(
                    LedgerEvent(
                        id: EventID.derived("ledger", "opening-deposit", user, money.currency), kind: .deposit,
                        userID: user,
                        entries: [
                            LedgerEntry(account: Ledger.funding, side: .debit, amount: money),
                            LedgerEntry(account: Ledger.available(user), side: .credit, amount: money),
                        ], amount: money))
            }
            let topic = topicOptions.topics.ledger
            let records = events.map { event in
                KafkaProducerMessage(
                    topic: topic,
                    event: EventEnvelope(
                        id: event.id, source: "/intentctl/ledger", type: LedgerEvent.type, time: Date(),
                        dataSchema: LedgerEvent.dataSchema, userID: user, conversationID: "ledger", payload: event))
            }
            try await publish(records, kafka: kafka, logging: logging)
            output(
                "account of \(user) opened (\(handles.joined(separator: ", ")))\(deposit.isEmpty ? "" : " with \(deposit.joined(separator: ", "))")"
            )
        }
    }
}
