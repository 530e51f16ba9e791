import ArgumentParser
import CommandLineSupport

/// The operator and developer command line: the local broker, topics,
/// effective Kafka configuration, and the demo.
@main
struct IntentCtl: AsyncParsableCommand {
    /// Usage errors exit 64 with the usage; errors while running exit 1 without it (``CommandMain``).
    static func main() async { await CommandMain.run(Self.self) }

    static let configuration = CommandConfiguration(
        commandName: "intentctl",
        abstract: "Operate intent-pipeline: local broker, topics, events, contacts, configuration and the demo.",
        discussion: """
            Kafka settings come from flags or the environment: KAFKA_BOOTSTRAP_SERVERS names the brokers, \
            and any other KAFKA_FOO_BAR=x sets the librdkafka property foo.bar=x (for example \
            KAFKA_SECURITY_PROTOCOL=sasl_ssl, KAFKA_SASL_USERNAME=svc). Logs go to standard error; \
            results to standard output. `intentctl --version` prints the version (a subcommand's --version is \
            its own option, such as a record's version).
            """,
        subcommands: [
            BrokerCommand.self, TopicsCommand.self, EventsCommand.self, KafkaConfigCommand.self, ContactsCommand.self,
            SettingsCommand.self,
            LedgerCommand.self, VoiceCommand.self, AuditCommand.self, TraceCommand.self, KeysCommand.self,
            DemoCommand.self, ReplayCommand.self, GroupsCommand.self,
        ]
    )

}
