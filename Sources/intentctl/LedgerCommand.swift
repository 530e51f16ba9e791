import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import Payments
import PipelineTopics

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
        @OptionGroup var stageKeys: StageKeyOptions
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let deposits = try deposit.map { text in
                guard let amount = CurrencyAmount(parsing: text) else {
                    throw ValidationError("Bad deposit \"\(text)\": expected e.g. \"1000 CNY\".")
                }
                return amount
            }
            // Signed as the ledger's operator: the workers accept accounts and deposits from it, nothing else.
            let keys = try stageKeys.keys(signingAs: PipelineSource.ledgerOperator)
            let records = KafkaProducerMessage.accountOpening(
                user, handles: handles, verified: !unverified, deposits: deposits, topics: topicOptions.topics,
                signedWith: keys)
            try await publish(records, kafka: kafka, logging: logging)
            output(
                "account of \(user) opened (\(handles.joined(separator: ", ")))\(deposit.isEmpty ? "" : " with \(deposit.joined(separator: ", "))")"
            )
        }
    }
}
