import ArgumentParser
import Kafka

struct KafkaConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka-config",
        abstract: "Print the effective librdkafka properties a worker would use (secrets redacted), and check the brokers answer.")

    @Flag(help: "Also connect and list the topics, failing within the request timeout if no broker answers.")
    var check = false

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let configuration = try kafka.configuration(clientID: "intent-pipeline")
        let producer = KafkaProducerConfiguration(client: configuration)
        for (key, value) in producer.librdkafkaProperties.sorted(by: { $0.key < $1.key }) {
            print("\(key)=\(KafkaConfiguration.displayValue(of: key, value))")
        }
        if check {
            let admin = try KafkaAdminClient(configuration: configuration, logger: logging.makeLogger(label: "intentctl"))
            let topics = try await admin.listTopics()
            print("# connected: \(topics.count) topics")
        }
    }
}
