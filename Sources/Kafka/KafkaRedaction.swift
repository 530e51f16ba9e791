import Foundation

/// Which librdkafka properties are secret, and configuration text without them.
///
/// A property is sensitive when it is on ``sensitiveProperties`` (librdkafka's
/// own sensitive set plus the other properties known to carry credentials or
/// keys), or when its name looks like a secret: it contains `password`,
/// `secret` or `passphrase`, has a `key`, `keytab` or `credentials` component,
/// or ends in `.pem`. The name rules catch properties newer librdkafka
/// versions add; the list catches those whose names do not look secret
/// (`sasl.oauthbearer.config` holds a token's claims, `sasl.kerberos.kinit.cmd`
/// may embed one). `sasl.username` is shown: it names an identity, and
/// authentication failures cannot be debugged without it.
extension KafkaConfiguration {
    /// What a sensitive value is shown as.
    public static let redactedPlaceholder = "<redacted>"

    /// Properties always redacted, whatever the name rules say.
    public static let sensitiveProperties: Set<String> = [
        // librdkafka 2.8's _RK_SENSITIVE properties (rdkafka_conf.c), except sasl.username.
        "sasl.password", "sasl.oauthbearer.config", "ssl.key.location", "ssl.key.password", "ssl.key.pem",
        "ssl_key", "ssl.ca.pem", "ssl.keystore.password",
        // Not flagged by librdkafka, but credentials or key material all the same.
        "sasl.oauthbearer.client.secret", "sasl.oauthbearer.extensions", "sasl.kerberos.keytab",
        "sasl.kerberos.kinit.cmd", "ssl.keystore.location", "ssl.engine.callback.data",
        "ssl_engine_callback_data", "sasl.oauthbearer.assertion.private.key.file",
        "sasl.oauthbearer.assertion.private.key.passphrase", "sasl.oauthbearer.assertion.private.key.pem",
        "sasl.oauthbearer.assertion.file",
    ]

    private static let sensitiveWords = ["password", "secret", "passphrase"]
    private static let sensitiveComponents: Set<Substring> = ["key", "keytab", "credentials"]

    /// Whether the value of `key` must never be printed or logged.
    public static func isSensitive(_ key: String) -> Bool {
        let name = key.lowercased()
        if sensitiveProperties.contains(name) || name.hasSuffix(".pem") { return true }
        if sensitiveWords.contains(where: { name.contains($0) }) { return true }
        return name.split(whereSeparator: { $0 == "." || $0 == "_" }).contains { sensitiveComponents.contains($0) }
    }

    /// A property value fit for logs and error messages: secrets are redacted.
    public static func displayValue(of key: String, _ value: String) -> String {
        isSensitive(key) ? redactedPlaceholder : value
    }

    /// `key=value` lines, sorted by key, secrets redacted: how configuration is printed
    /// (`intentctl kafka-config`) and described.
    public static func displayLines(_ properties: [String: String]) -> [String] {
        properties.sorted { $0.key < $1.key }.map { "\($0.key)=\(displayValue(of: $0.key, $0.value))" }
    }

    /// `text` (say, an error librdkafka wrote about these properties) with the
    /// value of every sensitive property replaced by the placeholder.
    public static func redacting(_ text: String, properties: [String: String]) -> String {
        properties.filter { isSensitive($0.key) && !$0.value.isEmpty }.map(\.value)
            .sorted { $0.count > $1.count }  // a secret containing a shorter one is replaced whole
            .reduce(text) { $0.replacingOccurrences(of: $1, with: redactedPlaceholder) }
    }
}

// Interpolating, printing or dumping a configuration shows no secret.

extension KafkaConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaConfiguration(\(Self.displayLines(librdkafkaProperties).joined(separator: ", ")))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["properties": description]) }
}

extension KafkaSASL: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaSASL(mechanism: \(mechanism.rawValue), username: \(username), password: \(KafkaConfiguration.redactedPlaceholder))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension KafkaTLS: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaTLS(\(KafkaConfiguration.displayLines(properties).joined(separator: ", ")))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension KafkaProducerConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaProducerConfiguration(\(KafkaConfiguration.displayLines(librdkafkaProperties).joined(separator: ", ")))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension KafkaConsumerConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaConsumerConfiguration(\(KafkaConfiguration.displayLines(librdkafkaProperties).joined(separator: ", ")))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
