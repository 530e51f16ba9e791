import ArgumentParser
import CommandLineSupport
import ContactResolution
import Foundation

struct ContactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts",
        abstract: "Contact resolution tools.",
        subcommands: [Resolve.self]
    )

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve spoken names against a contacts file, in batch.",
            discussion: """
                Reads JSON Lines queries {"id": string, "spoken": string} on standard input and writes \\
                one line {"id", "outcome", "candidates"} per query on standard output, in order. \\
                Outcomes: success, disambiguation, confirmationRequired, needsValue, unsupported; \\
                candidates are contact ids, best first. FILE is a JSON array of contacts: {"id", \\
                "displayName", "givenName"?, "familyName"?, "nickname"?, "aliases"?, "relation"?, \\
                "handles"?, "interactionCount"?, "lastInteraction"? (ISO-8601)}.
                """)

        @Option(name: .long, help: ArgumentHelp("Contacts as a JSON array.", valueName: "FILE"))
        var contacts: String

        func run() async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: contacts))
            } catch {
                throw ValidationError("Cannot read \(contacts): \(error.localizedDescription)")
            }
            let resolver = ContactResolver(contacts: try BatchResolution.contacts(from: data))
            while let line = readLine(strippingNewline: true) {
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                output(BatchResolution.encode(BatchResolution.answer(line: line, resolver: resolver)))
            }
        }
    }
}
