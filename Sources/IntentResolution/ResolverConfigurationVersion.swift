import IntentCrypto
import IntentEvents

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
}
