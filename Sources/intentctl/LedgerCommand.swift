import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import Intents
import Kafka
import Payments
import PipelineTools
import PipelineTopics

/// Operator tools for the payments ledger: accounts and deposits (the
/// ledger's one way in for money from outside). Each reads what the topics
/// hold now and either writes one event signed as the ledger operator, says
/// it is already done, or exits non-zero naming what is in the way
/// (``LedgerOperatorPlan``).
struct LedgerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Open and close payment accounts and deposit money (writes ledger events).",
        subcommands: [OpenAccount.self, CloseAccount.self, Deposit.self]
    )

    /// What every ledger command reads and publishes with.
    struct Connection: ParsableArguments {
        @OptionGroup var stageKeys: StageKeyOptions
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        /// Signed as the ledger's operator: the workers accept accounts and deposits from it, nothing else.
        func keys() throws -> EventAuthenticator { try stageKeys.keys(signingAs: PipelineSource.ledgerOperator) }

        /// The accounts as every worker holds them now.
        func accounts(_ keys: EventAuthenticator) async throws -> AccountDirectory {
            try await AccountsReader.directory(
                topic: topicOptions.topics.accounts, configuration: kafka.configuration(),
                logger: logging.makeLogger(label: "intentctl.ledger"), keys: keys)
        }

        /// The ledger events (signed by an allowed writer) that `body` keeps, the whole topic read.
        func ledgerEvents(_ keys: EventAuthenticator, where keep: (LedgerEvent) -> Bool) async throws -> [LedgerEvent] {
            var kept: [LedgerEvent] = []
            try await TopicReader.forEachRecord(
                of: topicOptions.topics.ledger, configuration: kafka.configuration(),
                logger: logging.makeLogger(label: "intentctl.ledger")
            ) { message in
                if let event = try? LedgerRecord.decode(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys),
                    keep(event)
                {
                    kept.append(event)
                }
            }
            return kept
        }

        /// Writes the step's event (on the ledger topic, and account records on the accounts
        /// topic too) and prints `done`, or prints why nothing was written; a refusal fails.
        func carry(
            _ plan: Result<LedgerOperatorPlan.Step, LedgerOperatorPlan.Refusal>, _ keys: EventAuthenticator,
            done: (LedgerEvent) -> String
        ) async throws {
            switch plan {
            case .failure(let refusal): throw CommandFailure(refusal.description)
            case .success(.alreadyDone(let sentence)): output("nothing written: \(sentence)")
            case .success(.write(let event)):
                try await publish(
                    KafkaProducerMessage.ledgerOperator([event], topics: topicOptions.topics, signedWith: keys),
                    kafka: kafka, logging: logging)
                output(done(event))
            }
        }
    }

    struct OpenAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open-account",
            abstract: "Open a user's payment account (deposit separately with `intentctl ledger deposit`).",
            discussion: """
                Idempotent: opening the same account as it is again writes nothing. Refused (non-zero exit, \
                the difference named) when a handle belongs to another user's account, or when the account is \
                open with other handles or verification, unless --replace writes a new version of it. The \
                version is the next one after what the accounts topic holds.
                """)

        @Option(help: "The user.") var user: String
        @Option(name: .customLong("handle"), help: "A handle payers know the account by. Repeatable.")
        var handles: [String] = []
        @Flag(help: "Payment credentials not verified yet (payments answer failureCredentialsUnverified).")
        var unverified = false
        @Flag(help: "Replace the open account's handles and verification with these (a new version).")
        var replace = false
        @OptionGroup var connection: Connection

        func run() async throws {
            let keys = try connection.keys()
            let plan = LedgerOperatorPlan.opening(
                userID: user, handles: handles, verified: !unverified, replacing: replace,
                directory: try await connection.accounts(keys))
            try await connection.carry(plan, keys) {
                "account of \(user) opened (\(handles.joined(separator: ", "))), version \($0.accountVersion ?? 0)"
            }
        }
    }

    struct CloseAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close-account",
            abstract: "Close a user's payment account, releasing its handles.",
            discussion: """
                Refused (non-zero exit) while the account holds money, available or held: move it out first. \
                Its handles are free for another account once closed; no payment reaches it.
                """)

        @Option(help: "The user.") var user: String
        @OptionGroup var connection: Connection

        func run() async throws {
            let keys = try connection.keys()
            let directory = try await connection.accounts(keys)
            // The user's balances: their own events hold every entry of their accounts.
            var ledger = Ledger()
            for event in try await connection.ledgerEvents(keys, where: { $0.userID == user }) {
                _ = try? ledger.apply(event, checkingBalances: false)
            }
            let balances = ledger.allBalances.filter {
                $0.account == Ledger.available(user) || $0.account == Ledger.held(user)
            }
            try await connection.carry(
                LedgerOperatorPlan.closing(userID: user, directory: directory, balances: balances.map(\.money)), keys
            ) { "account of \(user) closed, version \($0.accountVersion ?? 0); its handles are released" }
        }
    }

    struct Deposit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deposit",
            abstract: "Deposit money into a user's account: the one door money enters by.",
            discussion: """
                Idempotent by --id: the deposit's event id derives from it, so the same command twice deposits \
                once. The same id with another user or amount is refused (non-zero exit, the difference named). \
                The amount must fit its currency's ISO 4217 minor units (2 for CNY, 0 for JPY, 3 for KWD).
                """)

        @Option(help: "The user.") var user: String
        @Option(help: "The amount, e.g. 12.34.") var amount: String
        @Option(help: "The ISO 4217 currency, e.g. CNY.") var currency: String
        @Option(
            name: .customLong("id"), help: "An idempotency id for this deposit (e.g. the bank transfer's reference).")
        var idempotencyID: String
        @OptionGroup var connection: Connection

        func run() async throws {
            guard let money = CurrencyAmount(parsing: "\(amount) \(currency)") else {
                throw ValidationError(
                    "Bad amount \"\(amount) \(currency)\": expected e.g. --amount 12.34 --currency CNY.")
            }
            let keys = try connection.keys()
            let id = LedgerEvent.depositID(idempotencyID)
            let existing = try await connection.ledgerEvents(keys, where: { $0.id == id }).first
            let plan = LedgerOperatorPlan.deposit(
                idempotencyID: idempotencyID, userID: user, amount: money,
                directory: try await connection.accounts(keys), existing: existing)
            try await connection.carry(plan, keys) { _ in "deposited \(money) to \(user) (id \(idempotencyID))" }
        }
    }
}
