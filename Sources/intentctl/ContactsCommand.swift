import ArgumentParser
import CommandLineSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Kafka
import PipelineTools

struct ContactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts",
        abstract: "Contact resolution tools.",
        subcommands: [Resolve.self, Publish.self]
    )

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve spoken names against a contacts file, in batch.",
            discussion: """
                Reads JSON Lines queries {"id": string, "spoken": string} on standard input and writes \
                one line {"id", "outcome", "candidates"} per query on standard output, in order. \
                Outcomes: success, disambiguation, confirmationRequired, needsValue, unsupported; \
                candidates are contact ids, best first. FILE is a JSON array of contacts: {"id", \
                "displayName", "givenName"?, "familyName"?, "nickname"?, "aliases"?, "relation"?, \
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

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish a user's contacts to the compacted contacts topic.",
            discussion: """
                Each contact of FILE (the same format as `contacts resolve`) becomes a contact.upserted.v1 \
                event keyed ["USER","CONTACT-ID"]; each --delete ID becomes a tombstone. The resolve \
                worker materializes the topic, so this is how a user's address book reaches it. Every \
                record of a run carries --version N (default: the time in milliseconds); readers ignore a \
                record or tombstone whose version is not higher than the one they hold for that contact, \
                so an old record appended again changes nothing.
                """)

        @Option(help: "The user whose address book this is.") var user: String
        @Option(name: .long, help: ArgumentHelp("Contacts as a JSON array.", valueName: "FILE"))
        var contacts: String?
        @Option(name: .customLong("delete"), help: ArgumentHelp("A contact id to delete. Repeatable.", valueName: "ID"))
        var deletions: [String] = []
        @Option(
            help: ArgumentHelp(
                "The contacts service this publishes as; its key must be in the source keys (the resolve worker accepts contacts only from /contacts/... sources).",
                valueName: "SOURCE"))
        var source = "/contacts/intentctl"
        @OptionGroup var version: RecordVersionOption
        @OptionGroup var sourceKeys: SourceKeyOptions
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            try requireSource(source, startingWith: PipelineSource.contactsPrefix)
            if contacts == nil && deletions.isEmpty {
                throw ValidationError("Give --contacts FILE, --delete ID, or both.")
            }
        }

        func run() async throws {
            let book: [Contact]
            if let contacts {
                do {
                    book = try BatchResolution.contacts(from: Data(contentsOf: URL(fileURLWithPath: contacts)))
                } catch {
                    throw ValidationError("Cannot read \(contacts): \(error)")
                }
            } else {
                book = []
            }
            let topic = topicOptions.topics.contacts
            let version = version.resolved()
            try await publishSigned(
                to: topic, as: source, sourceKeys: sourceKeys, kafka: kafka, logging: logging
            ) { keys, partitions in
                book.map {
                    KafkaProducerMessage.contact(
                        $0, of: user, version: version, topic: topic, partitions: partitions, source: source,
                        signedWith: keys)
                }
                    + deletions.map {
                        KafkaProducerMessage.contactDeletion(
                            $0, of: user, version: version, topic: topic, partitions: partitions, source: source,
                            signedWith: keys)
                    }
            }
            output(
                "published \(book.count) contacts and \(deletions.count) deletions for \(user) to \(topic) at version \(version)"
            )
        }
    }
}
