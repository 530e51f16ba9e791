public import Foundation

/// Resolves a spoken name to the user's contacts, the way SiriKit expects:
/// success for one strong match, disambiguation (at most three, ranked by
/// how often and how recently the user talks to each) for several,
/// confirmationRequired when only a weak match exists, unsupported for none,
/// needsValue for nothing said.
///
/// Pure and immutable: build one per user's contact list (spellings are
/// computed once, here), then resolve any number of phrases, from any thread.
public struct ContactResolver: Sendable {
    /// Match strength thresholds; see ``MatchKind`` for what scores what.
    public struct Thresholds: Sendable, Hashable {
        /// At or above: a strong match.
        public var strong: Double = 0.9
        /// At or above (and below ``strong``): a weak match, to be confirmed.
        public var weak: Double = 0.78
        /// A top match this far ahead of the next is taken alone.
        public var margin: Double = 0.04

        public init() {}
    }

    /// How a contact matched, and the score each kind gives.
    enum MatchKind: Double, Comparable {
        /// The whole name in some spelling ("Sun Bo", "sunbo", "Bo Sun").
        case fullName = 1.0
        /// A relation word for a contact tagged with that relation ("mom").
        case relation = 0.99
        /// One part of the name: given or family name, nickname, alias.
        case namePart = 0.95
        /// Via a nickname or diminutive (Bob → Robert, Dima → Dmitriy).
        case nickname = 0.93
        /// The whole name, spelled in another transliteration (``PhoneticKey``).
        case phoneticFullName = 0.94
        /// A nickname with the rest of the full name, in another transliteration.
        case phoneticNickname = 0.92
        /// A part of the name, or a nickname, in another transliteration:
        /// too loose alone for success, so the user confirms it.
        case phoneticPart = 0.88

        /// What a match on this kind's phonetic key scores.
        var phonetic: MatchKind {
            switch self {
            case .fullName, .relation, .phoneticFullName: .phoneticFullName
            case .namePart, .nickname, .phoneticNickname, .phoneticPart: .phoneticPart
            }
        }

        static func < (lhs: MatchKind, rhs: MatchKind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Entry: Sendable {
        var contact: Contact
        var relation: String?
        var affinity: Double
    }

    private let entries: [Entry]
    /// Spelling → contacts having it, with the kind of key it is for them.
    private let exact: [String: [(index: Int, kind: MatchKind)]]
    /// ``PhoneticKey`` of each spelling → contacts, with the phonetic kind.
    private let phonetic: [String: [(index: Int, kind: MatchKind)]]
    /// For fuzzy matching, spellings (as UTF-8) grouped by first letter (typos rarely change it).
    private let byInitial: [UInt8: FuzzyBucket]
    /// ``NameSpellings`` of every name in the book, by the name trimmed: a
    /// query usually says a contact's name as written ("孙波"), and
    /// transliterating it again per request (ICU) was most of a query's cost.
    private let spellingsOfName: [String: Set<String>]

    /// Spellings prepared for fuzzy comparison, stored column-wise so the
    /// cheap bound checks read plain values, without reference counting.
    private struct FuzzyBucket: Sendable {
        var lengths: [Int] = []
        var histograms: [SIMD32<UInt8>] = []
        var spellings: [[UInt8]] = []
        /// Every contact with the spelling: many share a given name or surname,
        /// and each distinct spelling is compared once.
        var owners: [[Int]] = []
        var positions: [String: Int] = [:]

        mutating func append(_ spelling: String, owner: Int) {
            if let position = positions[spelling] {
                owners[position].append(owner)
                return
            }
            let bytes = Array(spelling.utf8)
            positions[spelling] = spellings.count
            lengths.append(bytes.count)
            histograms.append(StringSimilarity.histogram(bytes))
            spellings.append(bytes)
            owners.append([owner])
        }
    }

    public let thresholds: Thresholds

    public init(contacts: [Contact], now: Date = Date(), thresholds: Thresholds = Thresholds()) {
        self.thresholds = thresholds
        var entries: [Entry] = []
        var exact: [String: [(index: Int, kind: MatchKind)]] = [:]
        var phonetic: [String: [(index: Int, kind: MatchKind)]] = [:]
        var byInitial: [UInt8: FuzzyBucket] = [:]
        var spellingsOfName: [String: Set<String>] = [:]
        for (index, contact) in contacts.enumerated() {
            entries.append(
                Entry(
                    contact: contact, relation: contact.relation.map(RelationWords.canonicalRelation),
                    affinity: Self.affinity(contact, now: now)))
            for (spelling, kind) in Self.keys(of: contact, spellings: &spellingsOfName) {
                exact[spelling, default: []].append((index, kind))
                phonetic[PhoneticKey.of(spelling), default: []].append((index, kind.phonetic))
                if let initial = spelling.utf8.first {
                    byInitial[initial, default: FuzzyBucket()].append(spelling, owner: index)
                }
            }
        }
        self.entries = entries
        self.exact = exact
        self.phonetic = phonetic
        self.byInitial = byInitial
        self.spellingsOfName = spellingsOfName
    }

    /// ``NameSpellings/of(_:)``, from the book's names when the text is one of them.
    private static func spellings(of name: String, cache: inout [String: Set<String>]) -> Set<String> {
        let trimmed = name.trimmingWhitespaceAndNewlines
        if let known = cache[trimmed] { return known }
        let spellings = NameSpellings.of(trimmed)
        cache[trimmed] = spellings
        return spellings
    }

    /// Every spelling under which a contact can be found, with its kind.
    private static func keys(of contact: Contact, spellings cache: inout [String: Set<String>]) -> [(String, MatchKind)]
    {
        var fullNames = [contact.displayName]
        if let given = contact.givenName, let family = contact.familyName {
            fullNames += ["\(given) \(family)", "\(family) \(given)", "\(family)\(given)"]
        }
        var parts =
            [contact.givenName, contact.familyName, contact.nickname].compactMap { $0 } + (contact.aliases ?? [])
        // Words of the display name count as parts too ("Brandon" for "Brandon Lee").
        let displayWords = contact.displayName.split(whereSeparator: \.isWhitespace).map(String.init)
        if displayWords.count > 1 { parts += displayWords }
        var keys: [String: MatchKind] = [:]
        for name in parts {
            for spelling in spellings(of: name, cache: &cache) {
                keys[spelling] = max(keys[spelling] ?? .namePart, .namePart)
            }
        }
        for name in fullNames {
            for spelling in spellings(of: name, cache: &cache) { keys[spelling] = .fullName }
        }
        return keys.map { ($0.key, $0.value) }
    }

    /// How often and how recently the user talks to a contact, for ranking.
    private static func affinity(_ contact: Contact, now: Date) -> Double {
        let frequency = log1p(Double(max(0, contact.interactionCount ?? 0)))
        let recency =
            contact.lastInteraction.map { last in
                let days = max(0, now.timeIntervalSince(last) / 86_400)
                return 2.0 / (1.0 + days / 7.0)
            } ?? 0
        return frequency + recency
    }

    // MARK: Resolving

    public func resolve(_ spoken: String) -> Resolution {
        let phrase = spoken.trimmingWhitespaceAndNewlines
        guard !phrase.isEmpty else { return Resolution(outcome: .needsValue, candidates: []) }
        let ranked = scores(for: phrase)
            .filter { $0.score >= thresholds.weak }
            .sorted { lhs, rhs in
                if lhs.score != rhs.score { return lhs.score > rhs.score }
                let (left, right) = (entries[lhs.index].affinity, entries[rhs.index].affinity)
                if left != right { return left > right }
                return entries[lhs.index].contact.id < entries[rhs.index].contact.id
            }
        guard let best = ranked.first else { return Resolution(outcome: .unsupported, candidates: []) }
        let strong = ranked.filter { $0.score >= thresholds.strong }
        let contenders = (strong.isEmpty ? ranked : strong).filter { best.score - $0.score < thresholds.margin }
        if contenders.count >= 2 {
            // Among equally good matches, the user's frequent and recent contacts come first.
            let top = contenders.sorted {
                let (left, right) = (entries[$0.index].affinity, entries[$1.index].affinity)
                return left != right ? left > right : $0.score > $1.score
            }
            return Resolution(outcome: .disambiguation, candidates: top.prefix(3).map { entries[$0.index].contact.id })
        }
        let id = entries[best.index].contact.id
        return Resolution(outcome: best.score >= thresholds.strong ? .success : .confirmationRequired, candidates: [id])
    }

    /// The best score of every contact that matches at all.
    private func scores(for phrase: String) -> [(index: Int, score: Double)] {
        var best: [Int: Double] = [:]
        func offer(_ index: Int, _ score: Double) {
            if score > (best[index] ?? 0) { best[index] = score }
        }
        if let relation = RelationWords.relation(in: phrase) {
            for (index, entry) in entries.enumerated() where entry.relation == relation {
                offer(index, MatchKind.relation.rawValue)
            }
        }
        // The phrase is already trimmed; NameSpellings.of trims, so the book's entry is the same set.
        let spellings = spellingsOfName[phrase] ?? NameSpellings.of(phrase)
        for spelling in spellings {
            for match in exact[spelling] ?? [] { offer(match.index, match.kind.rawValue) }
            for match in phonetic[PhoneticKey.of(spelling)] ?? [] { offer(match.index, match.kind.rawValue) }
            for expanded in nicknameExpansions(of: spelling) {
                for match in exact[expanded] ?? [] { offer(match.index, MatchKind.nickname.rawValue) }
                for match in phonetic[PhoneticKey.of(expanded)] ?? [] {
                    let kind: MatchKind = match.kind == .phoneticFullName ? .phoneticNickname : .phoneticPart
                    offer(match.index, kind.rawValue)
                }
            }
        }
        // Typos and phonetic variants: similar spellings with the same initial.
        // Skipped when a strong match exists: weak ones cannot change the outcome.
        guard !best.values.contains(where: { $0 >= thresholds.strong }) else {
            return best.map { (index: $0.key, score: $0.value) }
        }
        let needed = thresholds.weak + Self.fuzzyPenalty
        for spelling in spellings {
            let query = Array(spelling.utf8)
            guard let initial = query.first, let bucket = byInitial[initial] else { continue }
            let histogram = StringSimilarity.histogram(query)
            bucket.lengths.withUnsafeBufferPointer { lengths in
                bucket.histograms.withUnsafeBufferPointer { histograms in
                    for position in lengths.indices
                    where StringSimilarity.upperBound(query.count, lengths[position]) >= needed
                        && StringSimilarity.upperBound(
                            query.count, histogram, lengths[position], histograms[position]) >= needed
                    {
                        let similarity = StringSimilarity.jaroWinkler(query, bucket.spellings[position])
                        // Scaled so that even a near-identical spelling stays a weak match.
                        for owner in bucket.owners[position] { offer(owner, similarity - Self.fuzzyPenalty) }
                    }
                }
            }
        }
        return best.map { (index: $0.key, score: $0.value) }
    }

    /// Subtracted from a fuzzy similarity: a spelling that only resembles a
    /// name is at best a weak match, which the user is asked to confirm.
    private static let fuzzyPenalty = 0.1

    /// The phrase with nicknames replaced by the formal names they stand for.
    private func nicknameExpansions(of spelling: String) -> [String] {
        let words = spelling.split(separator: " ").map(String.init)
        var expansions: [String] = []
        for (position, word) in words.enumerated() {
            for formal in Nicknames.formalNames[word] ?? [] {
                var replaced = words
                replaced[position] = formal
                expansions.append(replaced.joined(separator: " "))
            }
        }
        return expansions
    }
}
