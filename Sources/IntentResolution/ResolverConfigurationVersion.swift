import IntentCrypto
import IntentEvents
public import Intents

extension IntentResolver {
    /// The version of the configuration this resolver decides under: the first 8 bytes of the
    /// SHA-256 of its canonical JSON (`{"currencies": {CODE: [minimum, maximum]},
    /// "messagingServices": [...]}`), in hex. Each decision records it (`resolverConfiguration`),
    /// so `intentctl replay resolve` compares only decisions made under the configuration it is
    /// given: one started without the worker's `--currencies` would otherwise report every
    /// amount decision as a change.
    public var configurationVersion: String {
        let currencies = amounts.currencies.mapValues { limits in
            JSONValue.array([.string(limits.minimum.description), .string(limits.maximum.description)])
        }
        let configuration = JSONValue.object([
            "currencies": .object(currencies), "messagingServices": .array(messagingServices.map(JSONValue.string)),
        ])
        return Digest.hex(Digest.sha256(CanonicalJSON.encode(configuration)).prefix(8))
    }

    /// A decision as it is recorded: `request` resolved against `book`, stamped with the
    /// book's version and `configuration` (this resolver's ``configurationVersion``, computed
    /// once by the caller: it hashes). The replay rebuilds the book by the one and compares
    /// only decisions made under its own configuration by the other, so everything that writes
    /// decisions (the resolve stage, the audit benchmark's history) stamps them here.
    public func recordedDecision(
        _ request: IntentRequested, contacts book: ContactBook, configuration: String
    ) -> IntentResolutionReport {
        var report = resolve(request, contacts: book)
        report.contactsVersion = book.version
        report.resolverConfiguration = configuration
        return report
    }
}
