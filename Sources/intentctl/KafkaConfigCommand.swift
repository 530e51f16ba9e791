import ArgumentParser
import CommandLineSupport
import Kafka

struct KafkaConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka-config",
        abstract:
            "Print the effective librdkafka properties a worker would use (secrets redacted), and check the brokers answer."
    )

    @Flag(help: "Also connect and list the topics, failing within the request timeout if no broker answers.")
    var check = false

    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let configuration = try kafka.configuration(clientID: "intent-pipeline")
        let producer = KafkaProducerConfiguration(client: configuration)
        for line in KafkaConfiguration.displayLines(producer.librdkafkaProperties) { output(line) }
        if check {
            let topics = try await KafkaAdminClient.with(
                configuration: configuration, logger: logging.makeLogger(label: "intentctl")
            ) {
                try await $0.listTopics()
            }
            output("# connected: \(topics.count) topics")
        }
    }
}
