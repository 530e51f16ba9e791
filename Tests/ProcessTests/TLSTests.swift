import BrokerTestSupport
import Foundation
import IntentCrypto
import Kafka
import LocalBroker
import Testing

extension ProcessLevel {
    @Suite("TLS")
    struct TLSTests {
        /// Writes a freshly generated certificate and key to a private directory.
        func writeCertificate() throws -> (certificate: String, key: String) {
            let generated = try SelfSignedCertificate.generate(
                commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
            let directory = testFileURL(uniqueName("tls"))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let certificate = directory.appendingPathComponent("broker.pem")
            let key = directory.appendingPathComponent("broker.key")
            try generated.certificatePEM.write(to: certificate, atomically: true, encoding: .utf8)
            try generated.privateKeyPEM.write(to: key, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
            return (certificate.path, key.path)
        }

        @Test("clients talk TLS to the broker, verifying a certificate the test generated")
        func tlsRoundTrip() async throws {
            let files = try writeCertificate()
            try await withBroker(LocalBroker.Options(tls: files)) { broker in
                let security = KafkaSecurity.tls(KafkaTLS(caLocation: files.certificate))
                let topic = uniqueName("tls")
                let admin = try KafkaAdminClient(
                    configuration: clientConfiguration(broker, security: security), logger: testLogger)
                try await admin.createTopic(KafkaTopicSpecification(name: topic))
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(client: clientConfiguration(broker, security: security)),
                    logger: testLogger)
                try await producer.send(KafkaProducerMessage(topic: topic, key: "k", value: bytes("encrypted")))
                var consumerConfiguration = consumerConfiguration(broker, group: uniqueName("group"))
                consumerConfiguration.client.security = security
                let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: testLogger)
                try consumer.subscribe(topics: [topic])
                let received = try await consume(consumer, count: 1)
                #expect(received.first?.value == bytes("encrypted"))
                await admin.close()
                await consumer.close()
                await producer.shutdown()
            }
        }

        @Test("a client that does not trust the broker's certificate, or speaks plaintext, is refused")
        func untrustedOrPlaintextIsRefused() async throws {
            let files = try writeCertificate()
            let otherCA = try writeCertificate()
            try await withBroker(LocalBroker.Options(tls: files)) { broker in
                // A refused client fails at its request timeout: 3 s instead of the tests' 10 s, the
                // two refusals took 20 s of the heavy queue (docs/test-suite-time.md).
                func refusing(_ security: KafkaSecurity) -> KafkaConfiguration {
                    var configuration = clientConfiguration(broker, security: security)
                    configuration.requestTimeout = .seconds(3)
                    return configuration
                }
                let untrusted = try KafkaAdminClient(
                    configuration: refusing(.tls(KafkaTLS(caLocation: otherCA.certificate))), logger: testLogger)
                await #expect(throws: KafkaError.self) { try await untrusted.checkConnectivity() }
                let plaintext = try KafkaAdminClient(configuration: refusing(.plaintext), logger: testLogger)
                await #expect(throws: KafkaError.self) { try await plaintext.checkConnectivity() }
                await untrusted.close()
                await plaintext.close()
            }
        }
    }
}
