import Kafka
import Testing

/// Secrets never appear where configuration is printed or logged (issue 16, acceptance 9).
@Suite("Redaction of sensitive librdkafka properties")
struct RedactionTests {
    /// Every property known to hold a credential or key material, each with a distinct secret value.
    static let sensitive: [String] = [
        "sasl.password", "sasl.oauthbearer.config", "sasl.oauthbearer.client.secret", "sasl.oauthbearer.extensions",
        "sasl.kerberos.keytab", "sasl.kerberos.kinit.cmd", "ssl.key.location", "ssl.key.password", "ssl.key.pem",
        "ssl_key", "ssl.ca.pem", "ssl.certificate.pem", "ssl.keystore.location", "ssl.keystore.password",
        "ssl.engine.callback.data", "sasl.oauthbearer.assertion.private.key.passphrase",
        // Caught by the name rules rather than the list.
        "some.future.password", "a.new.api.secret", "x.private.key.file", "custom.passphrase",
    ]

    static func secret(_ key: String) -> String { "S3CRET-\(key.hashValue.magnitude)-VALUE" }

    static var configuration: KafkaConfiguration {
        var configuration = KafkaConfiguration(bootstrapServers: ["127.0.0.1:9092"])
        for key in sensitive { configuration.properties[key] = secret(key) }
        configuration.properties["sasl.username"] = "pipeline-user"
        configuration.properties["linger.ms"] = "7"
        return configuration
    }

    @Test("intentctl kafka-config's rendering shows every sensitive key but none of the secrets")
    func kafkaConfigOutput() {
        let lines = KafkaConfiguration.displayLines(
            KafkaProducerConfiguration(client: Self.configuration).librdkafkaProperties)
        let text = lines.joined(separator: "\n")
        for key in Self.sensitive {
            #expect(!text.contains(Self.secret(key)), "\(key) leaked")
            #expect(lines.contains("\(key)=<redacted>"), "\(key) missing")
            #expect(KafkaConfiguration.isSensitive(key))
        }
        // Identities and ordinary settings stay readable.
        #expect(lines.contains("sasl.username=pipeline-user"))
        #expect(lines.contains("linger.ms=7"))
        #expect(lines.contains("bootstrap.servers=127.0.0.1:9092"))
        #expect(lines == lines.sorted())
    }

    @Test("interpolating or dumping any configuration value shows no secret")
    func descriptions() {
        let sasl = KafkaSASL(mechanism: .scramSHA512, username: "svc", password: "hunter2-sasl")
        let tls = KafkaTLS(keyLocation: "/k.pem", keyPassword: "hunter2-tls")
        var configuration = Self.configuration
        configuration.security = .sasl(sasl, tls: tls)
        let producer = KafkaProducerConfiguration(client: configuration)
        let consumer = KafkaConsumerConfiguration(client: configuration, groupID: "g")
        var dumped = ""
        dump(consumer, to: &dumped)
        let texts = [
            "\(configuration)", String(reflecting: configuration), "\(producer)", "\(consumer)",
            "\(configuration.security)", String(reflecting: configuration.security), "\(sasl)", "\(tls)", dumped,
        ]
        for text in texts {
            #expect(!text.contains("hunter2"), "\(text)")
            for key in Self.sensitive { #expect(!text.contains(Self.secret(key)), "\(key) leaked: \(text)") }
        }
        #expect("\(sasl)".contains("svc"))
    }

    @Test("librdkafka's error texts are scrubbed of sensitive values, longest first")
    func scrubbing() {
        let properties = [
            "sasl.password": "abc", "sasl.oauthbearer.config": "principal=abcdef", "client.id": "abc-app",
        ]
        let text = #"Invalid value "principal=abcdef" (and abc) for client abc-app"#
        let scrubbed = KafkaConfiguration.redacting(text, properties: properties)
        #expect(scrubbed == #"Invalid value "<redacted>" (and <redacted>) for client <redacted>-app"#)
    }

    @Test("a client refused for a bad property does not echo a secret in its error")
    func clientCreationError() {
        var configuration = Self.configuration
        configuration.properties["sasl.password"] = "pw-in-error"
        configuration.properties["sasl.mechanism"] = "NO-SUCH-MECHANISM"
        configuration.properties["security.protocol"] = "sasl_plaintext"
        #expect {
            _ = try KafkaProducer(
                configuration: KafkaProducerConfiguration(client: configuration), logger: .init(label: "t"))
        } throws: { error in
            let text = "\(error)"
            return !text.contains("pw-in-error") && !Self.sensitive.contains { text.contains(Self.secret($0)) }
        }
    }
}
