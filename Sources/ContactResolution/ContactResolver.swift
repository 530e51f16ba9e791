public import Foundation

/// Resolves a spoken name to the user's contacts, the way SiriKit expects:
/// success for one strong match, disambiguation (at most three, ranked by
/// how often and how recently the user talks to each) for several,
/// confirmationRequired when only a weak match exists, unsupported for none,
/// needsValue for nothing said.
///
/// A name said exactly as one contact writes it (张伟, not its pinyin) is that
/// contact, even when others sound the same (章伟); two people written alike
/// are both offered. A given name in another English spelling (Catherine for
/// Katherine) finds the contact: with the surname as written that is a strong
/// match, alone it is confirmed.
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
        /// The given name in another English spelling (``SpellingVariants``:
        /// "Catherine Smith" for Katherine Smith) and the surname as written.
        /// Still a strong match: the surname is exact and the variant is the
        /// same name, so when one contact matches this way (and none better),
        /// that is success; when several do, disambiguation. Scored below
        /// every other strong kind, so any other strong match ranks first.
        case variantFullName = 0.91
        /// The given name alone, in another English spelling ("Catherine" for
        /// Katherine): a first name alone is weak evidence already, and a
        /// spelling the book does not have is weaker, so the user confirms it.
        case variantGivenName = 0.87

        /// What a match on this kind's phonetic key scores.
        var phonetic: MatchKind {
            switch self {
            case .fullName, .relation, .phoneticFullName: .phoneticFullName
            case .namePart, .nickname, .phoneticNickname, .phoneticPart: .phoneticPart
            // Never an exact key: variant keys are a map of their own.
            case .variantFullName, .variantGivenName: self
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
    /// ``SpellingVariants`` key of each Latin given name that has a K in it,
    /// alone and with each spelling of the surname (as is, either order) →
    /// contacts, with ``MatchKind/variantGivenName`` or ``MatchKind/variantFullName``.
    private let variants: [String: [(index: Int, kind: MatchKind)]]
    /// ``WrittenNames`` of every contact → the contacts written so: an exact
    /// match on the written name wins over the same name's other spellings.
    private let writtenNames: [String: [Int]]
    /// For fuzzy matching, spellings (as UTF-8) grouped by first letter (typos rarely change it).
    private let byInitial: [UInt8: FuzzyBucket]
    /// Each single-word spelling of a name part (``NameParts``) → the contacts
    /// having it, with a bit per part it can fill, so that a query's words
    /// are matched part by part, in any order (``partMatches(of:)``).
    private let parts: [String: [(index: Int, slots: UInt8)]]
    /// The same, by ``PhoneticKey`` of the spelling.
    private let phoneticParts: [String: [(index: Int, slots: UInt8)]]
    /// Family names, in written form (``WrittenNames/form(_:)``) and in every
    /// spelling → the contacts having them: what a title is said with
    /// ("Dr. Pemberton", 王老师; ``Titles``).
    private let surnames: [String: [Int]]
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

    /// `spellingCache` shares transliterations with the other books the process builds
    /// (``NameSpellingCache``); without one, each name is transliterated here.
    public init(
        contacts: [Contact], now: Date = Date(), thresholds: Thresholds = Thresholds(),
        spellingCache: NameSpellingCache? = nil
    ) {
        self.thresholds = thresholds
        var entries: [Entry] = []
        var exact: [String: [(index: Int, kind: MatchKind)]] = [:]
        var phonetic: [String: [(index: Int, kind: MatchKind)]] = [:]
        var variants: [String: [(index: Int, kind: MatchKind)]] = [:]
        var writtenNames: [String: [Int]] = [:]
        var byInitial: [UInt8: FuzzyBucket] = [:]
        var parts: [String: [(index: Int, slots: UInt8)]] = [:]
        var phoneticParts: [String: [(index: Int, slots: UInt8)]] = [:]
        var surnames: [String: [Int]] = [:]
        var spellingsOfName = SpellingTable(shared: spellingCache)
        for (index, contact) in contacts.enumerated() {
            entries.append(
                Entry(
                    contact: contact, relation: contact.relation.map(RelationWords.canonicalRelation),
                    affinity: Self.affinity(contact, now: now)))
            let nameParts = NameParts.of(contact)
            for (spelling, slots) in Self.partKeys(of: nameParts, spellings: &spellingsOfName) {
                Self.add(index, slots, to: &parts[spelling, default: []])
                Self.add(index, slots, to: &phoneticParts[spellingsOfName.phoneticKey(of: spelling), default: []])
            }
            if let family = nameParts.family {
                var forms = spellingsOfName.spellings(of: family)
                forms.insert(WrittenNames.form(family))
                for form in forms { surnames[form, default: []].append(index) }
            }
            for (spelling, kind) in Self.keys(of: contact, parts: nameParts, spellings: &spellingsOfName) {
                exact[spelling, default: []].append((index, kind))
                phonetic[spellingsOfName.phoneticKey(of: spelling), default: []].append((index, kind.phonetic))
                if let initial = spelling.utf8.first {
                    byInitial[initial, default: FuzzyBucket()].append(spelling, owner: index)
                }
            }
            for (key, kind) in Self.variantKeys(of: contact, spellings: &spellingsOfName) {
                variants[key, default: []].append((index, kind))
            }
            for written in WrittenNames.of(contact) { writtenNames[written, default: []].append(index) }
        }
        self.entries = entries
        self.exact = exact
        self.phonetic = phonetic
        self.variants = variants
        self.writtenNames = writtenNames
        self.byInitial = byInitial
        self.parts = parts
        self.phoneticParts = phoneticParts
        self.surnames = surnames
        self.spellingsOfName = spellingsOfName.names
    }

    /// The book's names' spellings as they are computed, from the shared cache when there is one.
    private struct SpellingTable {
        var names: [String: Set<String>] = [:]
        let shared: NameSpellingCache?

        init(shared: NameSpellingCache?) { self.shared = shared }

        /// ``NameSpellings/of(_:)``, computed once per name in the book.
        mutating func spellings(of name: String) -> Set<String> {
            let trimmed = name.trimmingWhitespaceAndNewlines
            if let known = names[trimmed] { return known }
            let spellings = shared?.spellings(of: trimmed) ?? NameSpellings.of(trimmed)
            names[trimmed] = spellings
            return spellings
        }

        func phoneticKey(of spelling: String) -> String {
            shared?.phoneticKey(of: spelling) ?? PhoneticKey.of(spelling)
        }
    }

    /// Every spelling under which a contact can be found, with its kind.
    private static func keys(of contact: Contact, parts nameParts: NameParts, spellings cache: inout SpellingTable)
        -> [(String, MatchKind)]
    {
        var fullNames = [contact.displayName]
        if let given = contact.givenName, let family = contact.familyName {
            fullNames += ["\(given) \(family)", "\(family) \(given)", "\(family)\(given)"]
        }
        // Each part alone, the patronymic in its spoken forms too ("Палыч").
        var parts =
            [contact.givenName, contact.familyName, contact.nickname].compactMap { $0 } + (contact.aliases ?? [])
            + nameParts.slots.joined()
        // Words of the display name count as parts too ("Brandon" for "Brandon Lee").
        let displayWords = contact.displayName.split(whereSeparator: \.isWhitespace).map(String.init)
        if displayWords.count > 1 { parts += displayWords }
        var keys: [String: MatchKind] = [:]
        for name in parts {
            for spelling in cache.spellings(of: name) {
                keys[spelling] = max(keys[spelling] ?? .namePart, .namePart)
            }
        }
        for name in fullNames {
            for spelling in cache.spellings(of: name) { keys[spelling] = .fullName }
        }
        return keys.map { ($0.key, $0.value) }
    }

    /// Single-word spellings of each part of a name, with the bit of the part
    /// (its slot in ``NameParts/slots``; at most eight) each can fill.
    private static func partKeys(of parts: NameParts, spellings cache: inout SpellingTable) -> [String: UInt8] {
        var keys: [String: UInt8] = [:]
        for (slot, forms) in parts.slots.prefix(8).enumerated() {
            for form in forms {
                for spelling in cache.spellings(of: form) where !spelling.contains(" ") {
                    keys[spelling, default: 0] |= 1 << slot
                }
            }
        }
        return keys
    }

    /// Adds a contact's slots to a part's owners, merged with the contact's
    /// earlier ones (spellings of one contact arrive together).
    private static func add(_ index: Int, _ slots: UInt8, to owners: inout [(index: Int, slots: UInt8)]) {
        if let last = owners.last, last.index == index {
            owners[owners.count - 1].slots |= slots
        } else {
            owners.append((index, slots))
        }
    }

    /// ``SpellingVariants`` keys of a contact's given name written in Latin
    /// script, alone and with the surname as spelled. The given and family
    /// names are the contact's, or the two words of a two-word display name.
    /// Only keys with a K: the others are the given name's ``PhoneticKey``,
    /// which the phonetic match already finds, and scores higher.
    private static func variantKeys(of contact: Contact, spellings cache: inout SpellingTable) -> [(
        String, MatchKind
    )] {
        var given = contact.givenName
        var family = contact.familyName
        if given == nil, family == nil {
            let words = contact.displayName.split(whereSeparator: \.isWhitespace)
            if words.count == 2 { (given, family) = (String(words[0]), String(words[1])) }
        }
        guard let given, SpellingVariants.isLatin(given) else { return [] }
        let surnames = family.map { cache.spellings(of: $0) } ?? []
        var keys: [String: MatchKind] = [:]
        for spelling in cache.spellings(of: given) {
            let key = SpellingVariants.key(spelling)
            guard SpellingVariants.hasK(key) else { continue }
            keys[key] = max(keys[key] ?? .variantGivenName, .variantGivenName)
            for surname in surnames {
                keys["\(key) \(surname)"] = .variantFullName
                keys["\(surname) \(key)"] = .variantFullName
            }
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
        let (resolution, strong) = resolveName(phrase)
        // A title is read only when the phrase as said names nobody strongly:
        // 小明 may well be a contact's whole name. Then the title decides: a
        // weak match of the whole phrase, title and all, means nothing.
        guard !strong, Titles.mayHaveTitle(phrase), let split = Titles.split(WrittenNames.form(phrase)),
            let titled = resolveTitled(split)
        else { return resolution }
        return titled
    }

    /// A name said without a title: the resolution, and whether its best match is strong.
    private func resolveName(_ phrase: String) -> (Resolution, strong: Bool) {
        let (matches, spellings) = scores(for: phrase)
        let ranked =
            matches
            .filter { $0.score >= thresholds.weak }
            .sorted { lhs, rhs in
                if lhs.score != rhs.score { return lhs.score > rhs.score }
                let (left, right) = (entries[lhs.index].affinity, entries[rhs.index].affinity)
                if left != right { return left > right }
                return entries[lhs.index].contact.id < entries[rhs.index].contact.id
            }
        guard let best = ranked.first else { return (Resolution(outcome: .unsupported, candidates: []), false) }
        let isStrong = best.score >= thresholds.strong
        let strong = ranked.filter { $0.score >= thresholds.strong }
        var contenders = (strong.isEmpty ? ranked : strong).filter { best.score - $0.score < thresholds.margin }
        if contenders.count >= 2 { contenders = writtenAsSpoken(phrase, among: contenders) }
        if contenders.count >= 2, !isStrong { contenders = withMostExactParts(spellings, among: contenders) }
        if contenders.count >= 2 { return (disambiguation(among: contenders), isStrong) }
        let chosen = contenders.first ?? best
        let id = entries[chosen.index].contact.id
        return (Resolution(outcome: isStrong ? .success : .confirmationRequired, candidates: [id]), isStrong)
    }

    /// Among equally good matches, the user's frequent and recent contacts
    /// come first; at most three are offered.
    private func disambiguation(among contenders: [(index: Int, score: Double)]) -> Resolution {
        let top = contenders.sorted {
            let (left, right) = (entries[$0.index].affinity, entries[$1.index].affinity)
            if left != right { return left > right }
            if $0.score != $1.score { return $0.score > $1.score }
            return entries[$0.index].contact.id < entries[$1.index].contact.id
        }
        return Resolution(outcome: .disambiguation, candidates: top.prefix(3).map { entries[$0.index].contact.id })
    }

    /// A name said with a title (``Titles``). The rule for "title + surname":
    /// the contacts whose family name is written as said (龚 for 龚老师, never
    /// its homophone 宫; Белов for "господин Белов", not Белова), else spelled
    /// so ("Mr. Belov" for Белов, "Mr. Zhang" for 张 and 章 alike). One such
    /// contact is the answer; several share the surname, so the user is asked
    /// which (a title is no evidence of which one: "Mr." does not tell a
    /// contact's sex, which the book does not record). When the rest is no
    /// one's surname, it is matched as a name ("Dr. Philippa Pemberton"),
    /// with three exceptions: 老 and 小 only go with a surname, so before
    /// anything else they are no title (nil: the phrase is taken as said); a
    /// single Han character can only be a surname, so it is nobody
    /// (unsupported); and a single Latin or Cyrillic word is somebody's other
    /// name at best ("Dr. Rupert"), so the user confirms it.
    private func resolveTitled(_ split: Titles.Split) -> Resolution? {
        let name = split.name
        var owners = surnames[name] ?? []
        if owners.isEmpty {
            var seen: Set<Int> = []
            for spelling in spellingsOfName[name] ?? NameSpellings.of(name) {
                for owner in surnames[spelling] ?? [] where seen.insert(owner).inserted { owners.append(owner) }
            }
        }
        if owners.count == 1 { return Resolution(outcome: .success, candidates: [entries[owners[0]].contact.id]) }
        if owners.count > 1 { return disambiguation(among: owners.map { (index: $0, score: 1) }) }
        guard !split.surnameOnly else { return nil }
        // One character after a title is a surname, and nobody's: 邹老师 is not 周 (Zhou), which
        // only sounds like it to the transliteration-folding key.
        if name.count == 1, name.unicodeScalars.contains(where: HanScript.isHan) {
            return Resolution(outcome: .unsupported, candidates: [])
        }
        let (resolution, _) = resolveName(name)
        let oneWord = !name.contains(" ") && !name.unicodeScalars.contains(where: HanScript.isHan)
        guard oneWord, resolution.outcome == .success else { return resolution }
        return Resolution(outcome: .confirmationRequired, candidates: resolution.candidates)
    }

    /// Among weak matches of a name said in several words, the contacts with
    /// the most words naming one of their parts exactly: "Aleksander Petrov"
    /// is nearer Aleksandr Petrov (the surname exact) than Aleksandra Petrova
    /// (nothing exact). The one left is still only weak, so still confirmed.
    private func withMostExactParts(
        _ spellings: Set<String>, among contenders: [(index: Int, score: Double)]
    ) -> [(index: Int, score: Double)] {
        // Per contender (by position), the most words of one spelling that are its parts.
        var exactWords = [Int](repeating: 0, count: contenders.count)
        var counts = exactWords
        for spelling in spellings where spelling.utf8.contains(UInt8(ascii: " ")) {
            for position in counts.indices { counts[position] = 0 }
            for word in spelling.split(separator: " ") {
                guard let owners = parts[String(word)] else { continue }
                for (position, contender) in contenders.enumerated()
                where owners.contains(where: { $0.index == contender.index }) {
                    counts[position] += 1
                }
            }
            for position in counts.indices { exactWords[position] = max(exactWords[position], counts[position]) }
        }
        let most = exactWords.max() ?? 0
        guard most > 0 else { return contenders }
        return zip(contenders, exactWords).filter { $0.1 == most }.map(\.0)
    }

    /// Among equally good matches on the whole name, the ones whose name is
    /// written exactly as spoken (``WrittenNames``): 张伟 said in characters is
    /// 张伟, not 章伟, though both are "Zhang Wei". One such contact is the
    /// answer; several (two people both written 张伟) are the ones to choose
    /// from. Contacts matched by a relation word stay among them: a relation
    /// is not another spelling of the name. When the phrase is nobody's
    /// written name (a transliteration, "Zhang Wei", or a part of a name,
    /// "Brandon"), the contenders are unchanged.
    ///
    /// Runs only for ties on a whole name (score 1); a phrase not already in
    /// written form (capitals, extra spaces) is normalized, which allocates.
    /// The common paths pay nothing.
    private func writtenAsSpoken(
        _ phrase: String, among contenders: [(index: Int, score: Double)]
    ) -> [(index: Int, score: Double)] {
        // A phrase already in written form (characters, lowercase) is looked up as it is.
        guard contenders.contains(where: { $0.score == MatchKind.fullName.rawValue }),
            let owners = writtenNames[phrase] ?? writtenNames[WrittenNames.form(phrase)]
        else { return contenders }
        let written = contenders.filter { owners.contains($0.index) }
        guard !written.isEmpty else { return contenders }
        guard let relation = RelationWords.relation(in: phrase) else { return written }
        return contenders.filter { owners.contains($0.index) || entries[$0.index].relation == relation }
    }

    /// The best score of every contact that matches at all, and the phrase's spellings.
    private func scores(for phrase: String) -> ([(index: Int, score: Double)], spellings: Set<String>) {
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
        // The words of the phrase as parts of a name, in any order, when no
        // spelling of the whole name matched exactly.
        if !best.values.contains(where: { $0 >= MatchKind.fullName.rawValue }) {
            for spelling in spellings {
                for match in partMatches(of: spelling) { offer(match.index, match.kind.rawValue) }
            }
        }
        // English spelling variants of the given name ("Catherine Smith" for
        // Katherine Smith), and then typos: both only when no strong match
        // exists, since weaker ones cannot change the outcome.
        guard !best.values.contains(where: { $0 >= thresholds.strong }) else {
            return (best.map { (index: $0.key, score: $0.value) }, spellings)
        }
        if !variants.isEmpty, SpellingVariants.isLatin(phrase) {
            for spelling in spellings {
                for match in variantMatches(of: spelling) { offer(match.index, match.kind.rawValue) }
            }
            guard !best.values.contains(where: { $0 >= thresholds.strong }) else {
                return (best.map { (index: $0.key, score: $0.value) }, spellings)
            }
        }
        // Typos and phonetic variants: similar spellings with the same initial.
        for spelling in spellings { fuzzyMatches(of: spelling, into: &best) }
        return (best.map { (index: $0.key, score: $0.value) }, spellings)
    }

    /// Offers every contact with a spelling similar to `spelling` (same
    /// initial), scored below any exact kind. A method of its own, over an
    /// `inout` table, so the hot loop stays free of captured state: as a
    /// closure inside ``scores(for:)`` it was no longer inlined once that
    /// function grew, and ran measurably slower.
    private func fuzzyMatches(of spelling: String, into best: inout [Int: Double]) {
        let needed = thresholds.weak + Self.fuzzyPenalty
        let query = Array(spelling.utf8)
        guard let initial = query.first, let bucket = byInitial[initial] else { return }
        let histogram = StringSimilarity.histogram(query)
        bucket.lengths.withUnsafeBufferPointer { lengths in
            bucket.histograms.withUnsafeBufferPointer { histograms in
                for position in lengths.indices
                where StringSimilarity.upperBound(query.count, lengths[position]) >= needed
                    && StringSimilarity.upperBound(
                        query.count, histogram, lengths[position], histograms[position]) >= needed
                {
                    // Scaled so that even a near-identical spelling stays a weak match.
                    let score = StringSimilarity.jaroWinkler(query, bucket.spellings[position]) - Self.fuzzyPenalty
                    for owner in bucket.owners[position] where score > (best[owner] ?? 0) { best[owner] = score }
                }
            }
        }
    }

    /// Subtracted from a fuzzy similarity: a spelling that only resembles a
    /// name is at best a weak match, which the user is asked to confirm.
    private static let fuzzyPenalty = 0.1

    /// Contacts whose Latin given name is a spelling variant of one word of
    /// the phrase, the other words (if any) being their surname as spelled.
    /// Each word is tried as the given name, so either order works.
    private func variantMatches(of spelling: String) -> [(index: Int, kind: MatchKind)] {
        let words = spelling.split(separator: " ")
        guard words.count <= 3 else { return [] }
        var matches: [(index: Int, kind: MatchKind)] = []
        for (position, word) in words.enumerated() {
            let key = SpellingVariants.key(String(word))
            guard SpellingVariants.hasK(key) else { continue }
            var replaced = words.map(String.init)
            replaced[position] = key
            matches += variants[replaced.joined(separator: " ")] ?? []
        }
        return matches
    }

    /// Contacts each word of a spelling names a different part of
    /// (``NameParts``), in any order: "Гаврилов Роман Павлович", "Roman
    /// Palych", "Smith Eugene" for a contact written "Eugene Smith". Every word
    /// exact is the whole name; a word in another transliteration, or a
    /// nickname, scores as it would for the whole name. Part by part, so a
    /// one-letter ending makes another part, not the same one: "Eugene" is
    /// not a part of Eugenia Smith's, and only Eugene Smith matches.
    private func partMatches(of spelling: String) -> [(index: Int, kind: MatchKind)] {
        guard spelling.utf8.contains(UInt8(ascii: " ")) else { return [] }
        let words = spelling.split(separator: " ").map(String.init)
        guard words.count <= 4 else { return [] }
        // Per word, per contact: the slots the word fills, by how it fills them.
        // Every word must name some part of someone: most phrases that get here
        // (typos, strangers) fail that at once, before anything is gathered.
        var keys: [String] = []
        keys.reserveCapacity(words.count)
        for word in words {
            let key = PhoneticKey.of(word)
            if parts[word] == nil, phoneticParts[key] == nil, Nicknames.formalNames[word] == nil { return [] }
            keys.append(key)
        }
        var hits: [[Int: SIMD4<UInt8>]] = []
        for (word, key) in zip(words, keys) {
            var found: [Int: SIMD4<UInt8>] = [:]
            func note(_ owners: [(index: Int, slots: UInt8)]?, _ how: Int) {
                for owner in owners ?? [] { found[owner.index, default: .zero][how] |= owner.slots }
            }
            note(parts[word], 0)
            note(phoneticParts[key], 1)
            for formal in Nicknames.formalNames[word] ?? [] {
                note(parts[formal], 2)
                note(phoneticParts[PhoneticKey.of(formal)], 3)
            }
            guard !found.isEmpty else { return [] }
            hits.append(found)
        }
        // Kinds in the order of the `how` above; a word may fill a slot in any lesser way too.
        let kinds: [MatchKind] = [.fullName, .phoneticFullName, .nickname, .phoneticNickname]
        var matches: [(index: Int, kind: MatchKind)] = []
        contacts: for index in hits[0].keys {
            var ways: [SIMD4<UInt8>] = []
            for found in hits {
                guard let way = found[index] else { continue contacts }
                ways.append(way)
            }
            for (how, kind) in kinds.enumerated() {
                let slots = ways.map { way in (0...how).reduce(UInt8(0)) { $0 | way[$1] } }
                if Self.fillsDistinctSlots(slots[...], used: 0) {
                    matches.append((index, kind))
                    break
                }
            }
        }
        return matches
    }

    /// Whether each word can take a slot of its own, from the slots it can fill.
    private static func fillsDistinctSlots(_ words: ArraySlice<UInt8>, used: UInt8) -> Bool {
        guard let first = words.first else { return true }
        var options = first & ~used
        while options != 0 {
            let slot = options & (0 &- options)
            if fillsDistinctSlots(words.dropFirst(), used: used | slot) { return true }
            options &= options - 1
        }
        return false
    }

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
