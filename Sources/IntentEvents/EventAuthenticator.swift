import Foundation
import IntentCrypto

/// Authenticates events by who produced them. Every producer, a voice
/// service or a pipeline stage, has its own keys, and signs the event's
/// canonical form (``EventEnvelope/encoded()``: sorted keys, RFC 3339 times
/// with milliseconds) with HMAC-SHA256. The signature travels in the record
/// header ``EventSignature/header`` as lowercase hex, the key's id in
/// ``EventSignature/keyIDHeader``.
///
/// A topic is not an identity: a consumer checks that an event's `source` is
/// one allowed to produce it *and* that the source's key signed it, so a
/// record written straight onto a stage's topic, or signed by another stage,
/// changes nothing. A leaked key lets an attacker speak only as that one
/// source; rotating it means listing the new key next to the old one (both
/// verify; the last one listed signs), then removing the old one.
public struct EventAuthenticator: Sendable {
    /// Compatibility names for the headers (voice services used these before key ids existed).
    public static let signatureHeader = EventSignature.header

    /// Keys by source, oldest first: the last one signs.
    private let keys: [String: [Keyed]]
    /// View keys (``ViewKey``) by the source they sign for, oldest first. They only ever
    /// sign; ``verify(_:received:signature:producedBy:)`` never tries them, so a holder of
    /// a view key (the app state) cannot speak as that source to any other reader.
    private let viewKeys: [String: [Keyed]]

    /// A key with its MAC state (``HMACKey``), built once per keyring rather than per event.
    private struct Keyed: Sendable {
        var key: SigningKey
        var mac: HMACKey
        /// The key id's bytes, the value of every key id header this key signs with (shared, not copied).
        var idBytes: [UInt8]

        init(key: SigningKey, mac: HMACKey) {
            self.key = key
            self.mac = mac
            idBytes = Array(key.id.utf8)
        }
    }

    public init(keys: [SigningKey]) {
        var signing: [String: [Keyed]] = [:]
        var views: [String: [Keyed]] = [:]
        for key in keys {
            let keyed = Keyed(key: key, mac: HMACKey(key.bytes))
            if let viewed = ViewKey.viewedSource(of: key.source) {
                views[viewed, default: []].append(keyed)
            } else {
                signing[key.source, default: []].append(keyed)
            }
        }
        self.keys = signing
        self.viewKeys = views
    }

    /// One key per source, with ids derived from the keys.
    public init(keys: [String: [UInt8]]) {
        self.init(keys: keys.map { SigningKey(source: $0.key, bytes: $0.value) })
    }

    public var sources: [String] { keys.keys.sorted() }

    public func hasKey(for source: String) -> Bool { keys[source]?.isEmpty == false }

    /// Whether `source` has a view key here (``ViewKey``).
    public func hasViewKey(for source: String) -> Bool { viewKeys[source]?.isEmpty == false }

    /// Every key, view keys included (under their ``ViewKey`` source names), for merging keyrings.
    public var allKeys: [SigningKey] { Self.listed(keys) + Self.listed(viewKeys) }

    /// The keys of `keyring`, source by source in order, oldest first within a source.
    private static func listed(_ keyring: [String: [Keyed]]) -> [SigningKey] {
        keyring.keys.sorted().flatMap { keyring[$0]?.map(\.key) ?? [] }
    }

    /// The view signature to send with an event already encoded (``ViewKey``); nil when
    /// `source` has no view key here.
    public func viewSignature(forCanonical bytes: [UInt8], source: String) -> EventSignature? {
        Self.sign(bytes, with: viewKeys[source]?.last)
    }

    /// The view keys as a keyring that verifies (each under the source it signs for), for
    /// the one reader that checks view signatures; this keyring's own keys are left out.
    public var viewing: EventAuthenticator {
        EventAuthenticator(
            keys: Self.listed(viewKeys).map {
                SigningKey(source: ViewKey.viewedSource(of: $0.source) ?? $0.source, id: $0.id, bytes: $0.bytes)
            })
    }

    /// The keyring without its view keys: what signs records no view reader reads.
    public var withoutViewKeys: EventAuthenticator { EventAuthenticator(keys: Self.listed(keys)) }

    /// The signature to send with the event; nil when its source has no key.
    public func signature(for event: EventEnvelope) -> EventSignature? {
        signature(forCanonical: event.encoded(), source: event.source)
    }

    /// The signature of an event already encoded (``EventEnvelope/encoded()``), so a
    /// producer encodes each event once.
    public func signature(forCanonical bytes: [UInt8], source: String) -> EventSignature? {
        Self.sign(bytes, with: keys[source]?.last)
    }

    /// The signature of an encoded event as the values of its two headers
    /// (``EventSignature/header``, ``EventSignature/keyIDHeader``): the hex written
    /// straight into its header's bytes, the key id's bytes shared. What a producer signs
    /// each record with; `view` signs with the source's view key (``ViewKey``) instead.
    /// Nil when the source has no such key.
    public func signatureHeaderValues(
        forCanonical bytes: [UInt8], source: String, view: Bool = false
    ) -> (hex: [UInt8], keyID: [UInt8])? {
        guard let keyed = (view ? viewKeys : keys)[source]?.last else { return nil }
        var hex: [UInt8] = []
        hex.reserveCapacity(HMACKey.hexCount)
        keyed.mac.appendHexAuthentication(of: bytes, to: &hex)
        return (hex, keyed.idBytes)
    }

    /// The key that signs for `source` (its last), for a chain link (``RecordChain``).
    func signingKey(for source: String) -> (idBytes: [UInt8], mac: HMACKey)? {
        keys[source]?.last.map { ($0.idBytes, $0.mac) }
    }

    /// The signature of `bytes` by `keyed` (the last key of a source signs), nil without a key.
    private static func sign(_ bytes: [UInt8], with keyed: Keyed?) -> EventSignature? {
        keyed.map { EventSignature(keyID: $0.key.id, hex: $0.mac.hexAuthenticate(bytes)) }
    }

    /// Accepts the event only if `isAllowed` accepts its source (who may
    /// produce this kind of event) and one of that source's keys signed it;
    /// with a key id, only that key is tried.
    public func verify(
        _ event: EventEnvelope, signature: EventSignature?, producedBy isAllowed: Producers = .any
    ) throws(EventDecodingError) {
        try verify(event, received: nil, signature: signature, producedBy: isAllowed)
    }

    /// The same check for an event decoded from `received` (a record's value): a
    /// signature over exactly those bytes is tried first, then over the event's canonical
    /// form (``EventEnvelope/encoded()``). Every pipeline producer publishes the very
    /// bytes it signed, so its events verify without being encoded again; a producer that
    /// sends other bytes than the canonical ones it signed verifies as before. Accepting a
    /// MAC over the received bytes is sound: only a holder of the source's key can compute
    /// it, and the event is what those bytes decode to (see SECURITY.md). The reasons for
    /// a refusal are the same as ``verify(_:signature:producedBy:)``'s.
    public func verify(
        _ event: EventEnvelope, received: [UInt8]?, signature: EventSignature?, producedBy isAllowed: Producers = .any
    ) throws(EventDecodingError) {
        let (keys, given) = try candidateKeys(source: event.source, what: event.type, signature: signature, isAllowed)
        if let received, Self.signs(keys, received, given) { return }
        guard Self.signs(keys, event.encoded(), given) else { throw Self.mismatch }
    }

    /// The same check for something signed that is not an event (a tombstone's key):
    /// `canonical` is what was signed, `source` who claims to have signed it.
    public func verify(
        canonical message: [UInt8], source: String, what: String, signature: EventSignature?,
        producedBy isAllowed: Producers = .any
    ) throws(EventDecodingError) {
        let (keys, given) = try candidateKeys(source: source, what: what, signature: signature, isAllowed)
        guard Self.signs(keys, message, given) else { throw Self.mismatch }
    }

    /// The keys to try for a signature claimed by `source` (all of its keys, or the one the
    /// signature names), and the signature, after checking that the source may produce
    /// `what`, has keys, and signed at all (with a key it has, if it names one).
    private func candidateKeys(
        source: String, what: String, signature: EventSignature?, _ isAllowed: Producers
    ) throws(EventDecodingError) -> (keys: Candidates, given: EventSignature) {
        guard isAllowed.admits(source) else {
            throw EventDecodingError(
                .wrongProducer, field: "$.source", "\(what) must come from \(isAllowed.description), not from \(source)"
            )
        }
        guard let candidates = keys[source], !candidates.isEmpty else {
            throw EventDecodingError(.unauthenticated, field: "$.source", "no key for source \(source)")
        }
        guard let signature else {
            throw EventDecodingError(.unauthenticated, field: EventSignature.header, "the event is not signed")
        }
        let tried = Candidates(keys: candidates, keyID: signature.keyID)
        guard tried.keys.contains(where: tried.admits) else {
            throw EventDecodingError(
                .unauthenticated, field: EventSignature.keyIDHeader,
                "key \(signature.keyID ?? "") is not a key of \(source) (retired, or never issued)")
        }
        return (tried, signature)
    }

    /// A source's keys to try: all of them, or only the one a signature names. Filtered as
    /// they are tried, not into an array of their own: this runs for every record read.
    private struct Candidates {
        var keys: [Keyed]
        var keyID: String?

        func admits(_ keyed: Keyed) -> Bool { keyID.map { keyed.key.id == $0 } ?? true }
    }

    /// Whether one of `keys` gives the signature `given` (hex, either case) over `message`,
    /// compared in constant time (``HMACKey/verifies(_:hex:)``, which allocates nothing).
    private static func signs(_ keys: Candidates, _ message: [UInt8], _ given: EventSignature) -> Bool {
        var hex = given.hex
        return hex.withUTF8 { hex in
            keys.keys.contains { keys.admits($0) && $0.mac.verifies(message, hex: hex) }
        }
    }

    private static let mismatch = EventDecodingError(
        .unauthenticated, field: EventSignature.header, "the signature does not match the event")

    public struct KeyError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads keys as lines `SOURCE HEXKEY` or `SOURCE KEYID HEXKEY` (blank
    /// lines and `#` comments allowed; commas separate entries too, for
    /// environment variables), from a file or an environment variable's
    /// value. Keys must be at least 32 bytes. A source listed twice has two
    /// keys (a rotation): both verify, the last one signs.
    public static func parseKeys(_ text: String, origin: String) throws(KeyError) -> [SigningKey] {
        var keys: [SigningKey] = []
        for (number, rawLine) in text.split(whereSeparator: { $0 == "\n" || $0 == "," }).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "=" || $0 == "\t" }).map(String.init)
            guard (2...3).contains(fields.count), let key = Digest.bytes(hex: fields[fields.count - 1]), key.count >= 32
            else {
                throw KeyError(
                    description:
                        "\(origin), entry \(number + 1): expected \"SOURCE HEXKEY\" or \"SOURCE KEYID HEXKEY\" with a key of at least 32 bytes (64 hex digits)"
                )
            }
            let signingKey =
                fields.count == 3
                ? SigningKey(source: fields[0], id: fields[1], bytes: key) : SigningKey(source: fields[0], bytes: key)
            if keys.contains(where: { $0.source == signingKey.source && $0.id == signingKey.id }) {
                throw KeyError(description: "\(origin), entry \(number + 1): key id \(signingKey.id) is listed twice")
            }
            keys.append(signingKey)
        }
        return keys
    }
}

/// One producer's key.
public struct SigningKey: Sendable, Hashable {
    /// The `source` the key signs for (`/voice/eu-1`, `/workers/confirm`).
    public var source: String
    /// Travels with each signature so a verifier tries exactly one key, also during a rotation.
    public var id: String
    public var bytes: [UInt8]

    public init(source: String, id: String, bytes: [UInt8]) {
        self.source = source
        self.id = id
        self.bytes = bytes
    }

    /// A key whose id is derived from it (the first 8 bytes of its SHA-256, in hex):
    /// stable, and says nothing usable about the key.
    public init(source: String, bytes: [UInt8]) {
        self.init(source: source, id: Digest.hex(Digest.sha256(bytes).prefix(8)), bytes: bytes)
    }
}

/// A signature as it travels in record headers.
public struct EventSignature: Sendable, Hashable {
    public static let header = "intent-signature"
    public static let keyIDHeader = "intent-key-id"
    /// The second signature, with a view key (``ViewKey``), and its key id.
    public static let viewHeader = "intent-view-signature"
    public static let viewKeyIDHeader = "intent-view-key-id"

    /// Nil for producers that predate key ids: every key of the source is tried.
    public var keyID: String?
    /// Lowercase hex of the HMAC-SHA256 over the canonical event.
    public var hex: String

    public init(keyID: String?, hex: String) {
        self.keyID = keyID
        self.hex = hex
    }
}

/// Which sources may produce a kind of event: the trust rule a consumer
/// applies before it acts, independent of the topic the event came on.
public struct Producers: Sendable, CustomStringConvertible {
    private let rule: @Sendable (String) -> Bool
    public let description: String

    public init(_ description: String, _ rule: @escaping @Sendable (String) -> Bool) {
        self.description = description
        self.rule = rule
    }

    public func admits(_ source: String) -> Bool { rule(source) }

    /// Any source with a key in the keyring (voice services, each with its own keys).
    public static let any = Producers("a source with a key") { _ in true }

    /// Exactly this source. The pipeline's own sources' rules are built once
    /// (``PipelineSource/all``): stages check their input's producer for every record, and
    /// building the rule (a set, a closure, its description) was four allocations each time.
    public static func only(_ source: String) -> Producers {
        pipelineSources[source] ?? Producers(source) { $0 == source }
    }

    private static let pipelineSources = Dictionary(
        uniqueKeysWithValues: PipelineSource.all.map { source in (source, Producers(source) { $0 == source }) })

    /// Exactly these sources.
    public static func only(_ sources: String...) -> Producers {
        let allowed = Set(sources)
        return Producers(sources.joined(separator: " or ")) { allowed.contains($0) }
    }
}

extension EventAuthenticator {
    /// A fresh 32-byte key for each source (the demo's and tests' keyrings, `intentctl keys generate`).
    /// Sources the app state shows (``ViewKey/isShown(_:)``) get a view key too.
    public static func generate(for sources: [String]) -> EventAuthenticator {
        EventAuthenticator(
            keys: sources.flatMap { source in
                [SigningKey(source: source, bytes: SecureRandom.bytes(32))]
                    + (ViewKey.isShown(source)
                        ? [SigningKey(source: ViewKey.source(viewing: source), bytes: SecureRandom.bytes(32))] : [])
            })
    }

    /// The keyring as a key file: one `SOURCE KEYID HEXKEY` line per key, in signing order.
    public var keyFileText: String {
        allKeys.map { "\($0.source) \($0.id) \(Digest.hex($0.bytes))\n" }.joined()
    }

    /// Only the keys of these sources (what one worker is given).
    public func restricted(to sources: Set<String>) -> EventAuthenticator {
        EventAuthenticator(keys: allKeys.filter { sources.contains(ViewKey.viewedSource(of: $0.source) ?? $0.source) })
    }
}
