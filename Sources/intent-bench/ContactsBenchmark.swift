import ArgumentParser
import ContactResolution
import Foundation
import LocalBroker
import StageRuntime

/// Contact resolution throughput on one core: a synthetic address book in
/// Latin, Han and Cyrillic script and a query mix of exact names, first
/// names (ambiguous), typos, and people who are not there.
struct ContactsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts",
        abstract: "Contact resolver throughput (queries per second on one core).",
        discussion: """
            Prints per-kind outcome counts and, as its last line, one JSON object: \
            {"contacts": N, "queries": N, "queries_per_s": N}. The target is at least 10,000 \
            queries per second against 1,000 contacts.
            """)

    @Option(help: "Contacts in the address book.") var contacts = 1_000
    @Option(help: "Queries to resolve.") var queries = 20_000
    @Option(help: "Seed for the synthetic data.") var seed: UInt64 = 7

    func run() async throws {
        var random = SplitMix64(seed: seed)
        let given = [
            "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "Brandon", "Elizabeth",
            "小明", "波", "丽", "芳", "Юлия", "Дмитрий", "Анна", "Сергей",
        ]
        let family = ["Smith", "Johnson", "Lee", "Garcia", "Chen", "孙", "王", "李", "Щукина", "Соколов", "Иванов"]
        let book = (0..<contacts).map { index in
            let first = given[Int(random.next() % UInt64(given.count))]
            let last = family[Int(random.next() % UInt64(family.count))]
            return Contact(
                id: "c\(index)", displayName: "\(first) \(last)\(index % 97)", givenName: first,
                familyName: "\(last)\(index % 97)", interactionCount: Int(random.next() % 50))
        }
        let phrases: [String] = (0..<queries).map { index in
            let contact = book[Int(random.next() % UInt64(book.count))]
            switch index % 4 {
            case 0: return contact.displayName
            case 1: return contact.givenName ?? contact.displayName
            case 2: return Self.typo(contact.displayName, &random)
            default: return "Zebulon Quartermaine"
            }
        }
        let indexingStarted = ContinuousClock.now
        let resolver = ContactResolver(contacts: book)
        let indexing = ContinuousClock.now - indexingStarted

        var outcomes: [ResolutionOutcome: Int] = [:]
        let started = ContinuousClock.now
        for phrase in phrases {
            outcomes[resolver.resolve(phrase).outcome, default: 0] += 1
        }
        let elapsed = ContinuousClock.now - started
        let perSecond = Double(queries) / elapsed.seconds
        print("indexed \(contacts) contacts in \(indexing); resolved \(queries) queries in \(elapsed)")
        for (outcome, count) in outcomes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            print("  \(outcome.rawValue): \(count)")
        }
        print("{\"contacts\": \(contacts), \"queries\": \(queries), \"queries_per_s\": \(Int(perSecond))}")
    }

    /// Swaps two neighbouring characters, the commonest typo.
    private static func typo(_ text: String, _ random: inout SplitMix64) -> String {
        var characters = Array(text)
        guard characters.count > 3 else { return text }
        let position = 1 + Int(random.next() % UInt64(characters.count - 2))
        characters.swapAt(position, position - 1)
        return String(characters)
    }
}
