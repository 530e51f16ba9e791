import ContactResolution
public import Foundation
import IntentEvents
public import IntentResolution
import Intents
public import Kafka
public import Logging
public import PipelineTopics

/// Re-derives past resolve decisions with the resolver of this build: every
/// request of a period is resolved again against the user's contact book as it
/// was when the request was decided (the decision records the book's
/// ``ContactBookVersion``; the book at that version is rebuilt from the contacts
/// topic's history), and what would now be decided differently is listed.
public enum ResolveReplay {
    public struct Change: Codable, Sendable, Hashable {
        public var intentID: String
        public var userID: String
        public var turn: Int
        /// Per parameter that changed: `outcome [candidates]`.
        public var before: [String: String]
        public var after: [String: String]
    }

    public struct Report: Codable, Sendable, Hashable {
        /// Requests re-derived.
        public var replayed = 0
        /// Requests with no decision on the prompts or resolved topic (stale, repeated or refused turns).
        public var undecided = 0
        /// Decisions from a resolver that did not record its contact book's version.
        public var unversioned = 0
        /// Decisions whose contact book is no longer in the contacts topic (compacted away).
        public var bookUnavailable = 0
        public var changes: [Change] = []
    }

    public static func run(
        topics: PipelineTopics, configuration: KafkaConfiguration, logger: Logger, from: Date?, to: Date?,
        resolver: IntentResolver = IntentResolver(), progress: ReplayProgress? = nil
    ) async throws -> Report {
        // The contacts' whole history, from the start: each version of each user's book.
        var history = ContactHistory()
        try await TopicReader.forEachRecord(
            of: topics.contacts, from: nil, to: nil, configuration: configuration, logger: logger, progress: progress
        ) { message in
            if let record = try? ContactRecord.decode(key: message.key, value: message.value) { history.apply(record) }
        }
        // Decisions and requests in the period.
        func read(_ topic: String, _ body: (EventEnvelope) -> Void) async throws {
            try await TopicReader.forEachRecord(
                of: topic, from: from, to: to, configuration: configuration, logger: logger, progress: progress
            ) { message in
                if let value = message.value, let event = try? EventEnvelope.decode(value) { body(event) }
            }
        }
        var decisions: [String: IntentResolutionReport] = [:]
        for topic in [topics.prompts, topics.resolved] {
            try await read(topic) { event in
                // The first decision published for a request is the one that counted (a redo
                // after a contact changed may have published another under the same id).
                if let cause = event.causationID, decisions[cause] == nil,
                    let report = try? event.decodeData(as: IntentResolutionReport.self)
                {
                    decisions[cause] = report
                }
            }
        }
        var report = Report()
        // One index per book version, built once: most users make many requests per version.
        var books: [String: ContactBook] = [:]
        let spellings = NameSpellingCache()
        try await read(topics.requested) { event in
            guard let intentID = event.intentID, let request = try? event.decodeData(as: IntentRequested.self) else {
                return
            }
            guard let decided = decisions[event.id] else {
                report.undecided += 1
                return
            }
            guard let version = decided.contactsVersion else {
                report.unversioned += 1
                return
            }
            let key = "\(event.userID) \(version)"
            let known = books[key]
            // Ranked as of the first request that used it, as the worker built it then.
            let rebuilt = known == nil ? history.book(of: event.userID, version: version) : nil
            guard
                let book = known
                    ?? rebuilt.map({ contacts in
                        ContactBook(
                            contacts: contacts,
                            resolver: ContactResolver(contacts: contacts, now: event.time, spellingCache: spellings))
                    })
            else {
                report.bookUnavailable += 1
                return
            }
            books[key] = book
            report.replayed += 1
            let now = resolver.resolve(request, contacts: book)
            let (before, after) = differences(decided, now)
            if !before.isEmpty || !after.isEmpty {
                report.changes.append(
                    Change(intentID: intentID, userID: event.userID, turn: request.turn, before: before, after: after))
            }
        }
        return report
    }

    /// The parameters decided differently, as `outcome [candidates]` each side.
    static func differences(
        _ before: IntentResolutionReport, _ after: IntentResolutionReport
    ) -> (before: [String: String], after: [String: String]) {
        func summaries(_ report: IntentResolutionReport) -> [String: String] {
            Dictionary(
                report.parameters.map { parameter in
                    let candidates = (parameter.candidates ?? []).map(\.contactID)
                    return (
                        parameter.parameter,
                        parameter.outcome.rawValue
                            + (candidates.isEmpty ? "" : " [\(candidates.joined(separator: ", "))]")
                    )
                }, uniquingKeysWith: { first, _ in first })
        }
        let old = summaries(before)
        let new = summaries(after)
        let changed = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
        return (old.filter { changed.contains($0.key) }, new.filter { changed.contains($0.key) })
    }
}

/// Every version each user's contact book had, as the contacts topic recorded them.
struct ContactHistory {
    private var current: [String: [String: Contact]] = [:]
    private var versions: [String: [String: [Contact]]] = [:]

    init() {}

    mutating func apply(_ record: ContactRecord) {
        let userID: String
        switch record {
        case .upsert(let user, let contact):
            userID = user
            current[user, default: [:]][contact.id] = contact
        case .delete(let user, let contactID):
            userID = user
            current[user]?[contactID] = nil
        }
        let contacts = (current[userID] ?? [:]).values.sorted { $0.id < $1.id }
        versions[userID, default: [:]][ContactBookVersion.of(contacts)] = contacts
    }

    /// The user's contacts at `version`; the empty book is every user's first version.
    func book(of userID: String, version: String) -> [Contact]? {
        if version == ContactBookVersion.of([]) { return [] }
        return versions[userID]?[version]
    }
}
