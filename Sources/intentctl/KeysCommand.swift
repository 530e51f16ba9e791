import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents

/// Key material for operators: new stage keys, and a rotation's next key.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Generate signing keys for the pipeline's stages and operators, and for the services that feed it.",
        subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new key per source as \"SOURCE KEYID HEXKEY\" lines, the format of every key file.",
            discussion: """
                Stages and operators (/workers/..., /operators/...) go in the stage keys \
                (INTENT_STAGE_KEYS_FILE); voice services (/voice/... or any other source), contacts \
                services (/contacts/...) and settings services (/settings/...) in the source keys \
                (INTENT_SOURCE_KEYS_FILE). Each stage, the ledger operator and each contacts and settings service \
                also get a view key (a /views/... line): the writer signs with both, and the app state is given \
                the /views/... lines alone (INTENT_VIEW_KEYS_FILE), which no worker trusts: it names people from \
                the contacts and shows each user's page in the language of their settings. Store the output as a secret (mode 0600), never in the repository. To rotate a source's key, \
                append its new line after the old one in every worker's keys (both verify; the last \
                one listed signs), roll the workers, then remove the old line and roll them again.
                """)

        @Option(
            name: .customLong("source"),
            help:
                "A source to make a key for (/workers/..., /voice/..., /contacts/..., /settings/...). Repeatable. Default: every stage and the ledger operator."
        )
        var sources: [String] = []

        func validate() throws {
            if let malformed = sources.first(where: { !$0.hasPrefix("/") || $0.count < 2 || $0.contains(" ") }) {
                throw ValidationError(
                    "\(malformed) is not a source: a source is a path such as /voice/eu-1, /contacts/main or /workers/confirm."
                )
            }
        }

        func run() throws {
            let chosen = sources.isEmpty ? PipelineSource.all : sources
            print(EventAuthenticator.generate(for: chosen).keyFileText, terminator: "")
        }
    }
}
