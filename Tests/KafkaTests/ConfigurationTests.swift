import BrokerTestSupport
import Kafka
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test("KAFKA_* environment variables map onto librdkafka properties")
    func environment() throws {
        let configuration = try #require(
            KafkaConfiguration.fromEnvironment([
                "KAFKA_BOOTSTRAP_SERVERS": "a:9092,b:9093",
                "KAFKA_SASL_USERNAME": "svc",
                "KAFKA_SSL_CA_LOCATION": "/etc/ca.pem",
                "HOME": "/root",
            ]))
        #expect(configuration.bootstrapServers == ["a:9092", "b:9093"])
        #expect(configuration.properties == ["sasl.username": "svc", "ssl.ca.location": "/etc/ca.pem"])
        #expect(KafkaConfiguration.fromEnvironment(["HOME": "/root"]) == nil)
    }

    @Test("consumer-only properties set for every client reach consumers, not producers or admin clients (no CONFWARN)")
    func consumerOnlyProperties() throws {
        let client = try #require(
            KafkaConfiguration.fromEnvironment([
                "KAFKA_BOOTSTRAP_SERVERS": "a:9092", "KAFKA_SESSION_TIMEOUT_MS": "6000",
                "KAFKA_HEARTBEAT_INTERVAL_MS": "500", "KAFKA_LINGER_MS": "3", "KAFKA_FETCH_WAIT_MAX_MS": "50",
            ]))
        let producer = KafkaProducerConfiguration(client: client).librdkafkaProperties
        #expect(producer["session.timeout.ms"] == nil)
        #expect(producer["heartbeat.interval.ms"] == nil)
        #expect(producer["linger.ms"] == "3", "producer properties from the environment still win")
        #expect(client.nonConsumerProperties["session.timeout.ms"] == nil, "the admin client's properties")
        #expect(client.nonConsumerProperties["fetch.wait.max.ms"] == nil)
        #expect(producer["fetch.wait.max.ms"] == nil)
        #expect(client.nonConsumerProperties["linger.ms"] == "3")
        let consumer = KafkaConsumerConfiguration(client: client, groupID: "g").librdkafkaProperties
        #expect(consumer["session.timeout.ms"] == "6000")
        #expect(consumer["heartbeat.interval.ms"] == "500")
        #expect(consumer["fetch.wait.max.ms"] == "50")
    }

    @Test("KAFKA_<PROPERTY>_FILE names a file for the property, and never becomes a property itself")
    func propertyFiles() {
        let environment = [
            "KAFKA_BOOTSTRAP_SERVERS": "a:9092", "KAFKA_SASL_PASSWORD_FILE": "/etc/kafka-credentials/password",
            "KAFKA_SASL_USERNAME": "pipeline",
        ]
        #expect(
            KafkaConfiguration.propertyFiles(fromEnvironment: environment) == [
                "sasl.password": "/etc/kafka-credentials/password"
            ])
        let properties = KafkaConfiguration.librdkafkaProperties(fromEnvironment: environment)
        #expect(properties["sasl.password.file"] == nil && properties["sasl.password"] == nil)
        #expect(properties["sasl.username"] == "pipeline")
    }

    @Test("key=value properties parse, and malformed ones are rejected with the culprit named")
    func propertyAssignments() throws {
        #expect(
            try KafkaConfiguration.parseProperties(["linger.ms=7", "sasl.password=a=b"]) == [
                "linger.ms": "7", "sasl.password": "a=b",
            ])
        #expect {
            try KafkaConfiguration.parseProperties(["nonsense"])
        } throws: { ($0 as? KafkaError)?.message.contains("nonsense") == true }
    }

    @Test("an unknown librdkafka property fails client creation with librdkafka's explanation")
    func invalidProperty() throws {
        var configuration = KafkaConfiguration(bootstrapServers: ["127.0.0.1:1"])
        configuration.properties["no.such.property"] = "1"
        #expect {
            _ = try KafkaAdminClient(configuration: configuration, logger: testLogger)
        } throws: { error in
            let error = error as? KafkaError
            return error?.message.contains("no.such.property") == true && error?.operation.contains("create") == true
        }
    }

    @Test("typed security settings become the librdkafka properties operators expect")
    func securityProperties() throws {
        let sasl = KafkaSASL(mechanism: .scramSHA512, username: "svc", password: "secret")
        var configuration = KafkaConfiguration(
            bootstrapServers: ["b:9093"], security: .sasl(sasl, tls: KafkaTLS(caLocation: "/ca.pem")))
        var properties = configuration.librdkafkaProperties
        #expect(properties["security.protocol"] == "sasl_ssl")
        #expect(properties["sasl.mechanism"] == "SCRAM-SHA-512")
        #expect(properties["sasl.username"] == "svc")
        #expect(properties["ssl.ca.location"] == "/ca.pem")
        #expect(properties["ssl.endpoint.identification.algorithm"] == "https")

        // Raw properties override typed ones.
        configuration.properties["security.protocol"] = "ssl"
        properties = configuration.librdkafkaProperties
        #expect(properties["security.protocol"] == "ssl")

        let producer = KafkaProducerConfiguration(client: KafkaConfiguration(bootstrapServers: ["b:1"]))
        #expect(producer.librdkafkaProperties["enable.idempotence"] == "true")
        #expect(producer.librdkafkaProperties["acks"] == "all")
        let consumer = KafkaConsumerConfiguration(client: KafkaConfiguration(bootstrapServers: ["b:1"]), groupID: "g")
        #expect(consumer.librdkafkaProperties["enable.auto.commit"] == "false")
        #expect(consumer.librdkafkaProperties["partition.assignment.strategy"] == "cooperative-sticky")
    }
}
