import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents

/// Key material for operators: new stage keys, and a rotation's next key.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Generate signing keys for the pipeline's stages and operators.",
        subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new key per source as \"SOURCE KEYID HEXKEY\" lines, the stage-keys file format.",
            discussion: """
                Store the output as a secret (mode 0600), never in the repository. To rotate a source's key, \
                append its new line after the old one in every worker's stage keys (both verify; the last \
                one listed signs), roll the workers, then remove the old line and roll them again.
                """)

        @Option(
            name: .customLong("source"),
            help: "A source to make a key for. Repeatable. Default: every stage and the ledger operator.")
        var sources: [String] = []

        func run() throws {
            let chosen = sources.isEmpty ? PipelineSource.all : sources
            if let foreign = chosen.first(where: { !PipelineSource.isInternal($0) }) {
                throw ValidationError("\(foreign) is not a stage or operator source (/workers/... or /operators/...).")
            }
            print(EventAuthenticator.generate(for: chosen).keyFileText, terminator: "")
        }
    }
}
