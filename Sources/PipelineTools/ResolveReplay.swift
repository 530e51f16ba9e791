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
/// topic's history), and what would now be decided differently is listed. Only
/// decisions made under the replay resolver's configuration are compared
/// (``IntentResolver/configurationVersion``, recorded in each decision).
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
        /// Decisions made under another resolver configuration than the replay's (or one not
        /// recorded, by older resolvers): not compared, since they would differ by configuration.
        public var otherConfiguration = 0
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
            if let record = try? ContactRecord.decode(
                key: message.key, value: message.value, tombstoneVersion: message.recordVersion)
            {
                history.apply(record)
            }
        }
        // Decisions and requests in the period.
        func read(_ topic: String, _ body: (EventEnvelope) -> Void) async throws {
            try await TopicReader.forEachRecord(
                of: topic, from: from, to: to, configuration: configuration, logger: logger, progress: progress
            ) { message in
                if let value = message.value, let event = try? EventEnvelope.decode(value) { body(event) }
            }
        }
        var decisions: [String: Decision] = [:]
        for topic in [topics.prompts, topics.resolved] {
            try await read(topic) { event in
                // The first decision published for a request is the one that counted (a redo
                // after a contact changed may have published another under the same id).
                if let cause = event.causationID, decisions[cause] == nil, let decision = Decision(event.data) {
                    decisions[cause] = decision
                }
            }
        }
        var report = Report()
        let configuration = resolver.configurationVersion
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
            guard decided.resolverConfiguration == configuration else {
                report.otherConfiguration += 1
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
            let now = Decision(resolver.resolve(request, contacts: book))
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
        _ before: Decision, _ after: Decision
    ) -> (before: [String: String], after: [String: String]) {
        let old = before.parameters
        let new = after.parameters
        let changed = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
        return (old.filter { changed.contains($0.key) }, new.filter { changed.contains($0.key) })
    }

    /// What a decision said, as the replay compares it: the contact-book version it used
    /// and per parameter `outcome [candidate ids]`. A recorded one is read from the
    /// event's JSON tree rather than decoded into an ``IntentResolutionReport``: decoding
    /// every decision was a fifth of a replay, and only these fields are compared.
    struct Decision {
        var contactsVersion: String?
        var resolverConfiguration: String?
        var parameters: [String: String] = [:]

        init(_ report: IntentResolutionReport) {
            contactsVersion = report.contactsVersion
            resolverConfiguration = report.resolverConfiguration
            for parameter in report.parameters where parameters[parameter.parameter] == nil {
                parameters[parameter.parameter] = Self.summary(
                    parameter.outcome.rawValue, (parameter.candidates ?? []).map(\.contactID))
            }
        }

        /// From a decision event's data; nil when it is not one.
        init?(_ data: JSONValue) {
            guard let fields = data.objectValue, let list = fields["parameters"]?.arrayValue else { return nil }
            switch fields["contactsVersion"] {
            case nil, .null?: contactsVersion = nil
            case .string(let version)?: contactsVersion = version
            default: return nil
            }
            resolverConfiguration = fields["resolverConfiguration"]?.stringValue
            for item in list {
                guard let parameter = item.objectValue, let name = parameter["parameter"]?.stringValue,
                    let outcome = parameter["outcome"]?.stringValue.flatMap(ParameterOutcome.init(rawValue:))
                else { return nil }
                var candidates: [String] = []
                switch parameter["candidates"] {
                case nil, .null?: break
                case .array(let list)?:
                    for candidate in list {
                        guard let id = candidate.objectValue?["contactID"]?.stringValue else { return nil }
                        candidates.append(id)
                    }
                default: return nil
                }
                if parameters[name] == nil { parameters[name] = Self.summary(outcome.rawValue, candidates) }
            }
        }

        private static func summary(_ outcome: String, _ candidates: [String]) -> String {
            outcome + (candidates.isEmpty ? "" : " [\(candidates.joined(separator: ", "))]")
        }
    }
}

/// Every version each user's contact book had, as the contacts topic recorded them
/// (a record older than its contact's newest, a replay, changed no book: skipped, as
/// the resolve worker skipped it).
/// Versions are named when first asked for, newest first: a decision usually used a
/// user's latest book, so most states are never hashed (hashing every state as it was
/// read was a twentieth of a replay).
struct ContactHistory {
    private var current: [String: [String: Contact]] = [:]
    /// The version applied per user and contact (``RecordVersion``).
    private var versions: [String: [String: Int64]] = [:]
    /// Each user's states in topic order, with each one's version once computed.
    private var states: [String: [(contacts: [Contact], version: String?)]] = [:]

    init() {}

    mutating func apply(_ record: ContactRecord) {
        let userID = record.userID
        guard RecordVersion.supersedes(record.version, seen: versions[userID]?[record.contactID]) else { return }
        versions[userID, default: [:]][record.contactID] = record.version
        switch record {
        case .upsert(let user, let contact, _): current[user, default: [:]][contact.id] = contact
        case .delete(let user, let contactID, _): current[user]?[contactID] = nil
        }
        let contacts = (current[userID] ?? [:]).values.sorted { $0.id < $1.id }
        states[userID, default: []].append((contacts, nil))
    }

    /// The user's contacts at `version`; the empty book is every user's first version.
    mutating func book(of userID: String, version: String) -> [Contact]? {
        if version == Self.empty { return [] }
        guard let count = states[userID]?.count else { return nil }
        for index in (0..<count).reversed() {
            guard let state = states[userID]?[index] else { return nil }
            let named = state.version ?? ContactBookVersion.of(state.contacts)
            states[userID]?[index].version = named
            if named == version { return state.contacts }
        }
        return nil
    }

    private static let empty = ContactBookVersion.of([])
}
