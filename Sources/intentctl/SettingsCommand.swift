import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import IntentResolution
import Kafka
import Localization
import PipelineTools

/// `intentctl settings set`: what the app's settings service publishes when a user
/// picks the language the assistant answers in.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Users' settings the pipeline reads (the language to answer in).",
        subcommands: [SetSettings.self]
    )

    struct SetSettings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Publish a user's settings to the compacted users.settings topic.",
            discussion: """
                Publishes a user.settings.v1 event keyed by the user id, on the user's partition; \
                --reset publishes a tombstone instead. The resolve worker reads the topic: a request \
                without a locale attribute is answered in the user's --locale, and every later stage \
                follows. A request's own locale always wins. The record carries --version N (default: \
                the time in milliseconds); readers ignore a setting or reset whose version is not higher \
                than the one they hold for the user, so an old record appended again changes nothing.
                """)

        @Option(help: "The user whose settings these are.") var user: String
        @Option(
            help: ArgumentHelp(
                "The language to answer in: a BCP 47 tag (zh-Hans-CN, ru-RU, en-US) or an Apple locale identifier (en_US), sent as the tag.",
                valueName: "TAG"))
        var locale: String?
        @Option(
            name: .customLong("voice-service"),
            help: ArgumentHelp(
                "A voice service (its source, e.g. /voice/eu-1) the user speaks through; repeat for several. Once set, the resolve worker takes the user's requests only from these.",
                valueName: "SOURCE"))
        var voiceServices: [String] = []
        @Flag(help: "Remove the user's settings (back to English, any voice service).") var reset = false
        @Option(
            help: ArgumentHelp(
                "The settings service this publishes as; its key must be in the source keys (the resolve worker accepts settings only from /settings/... sources).",
                valueName: "SOURCE"))
        var source = "/settings/intentctl"
        @OptionGroup var version: RecordVersionOption
        @OptionGroup var sourceKeys: SourceKeyOptions
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            try requireSource(source, startingWith: PipelineSource.settingsPrefix)
            // Exactly one of the two.
            guard (locale != nil || !voiceServices.isEmpty) != reset else {
                throw ValidationError("Give --locale TAG and/or --voice-service SOURCE, or --reset.")
            }
            for service in voiceServices where !PipelineSource.voice.admits(service) {
                throw ValidationError("--voice-service \(service) is not a voice service's source")
            }
            guard voiceServices.count <= UserSettings.maximumVoiceServices else {
                throw ValidationError("at most \(UserSettings.maximumVoiceServices) --voice-service")
            }
            if let locale, UserLocale.tag(fromIdentifier: locale) == nil {
                throw ValidationError(
                    "--locale must be a BCP 47 tag such as zh-Hans-CN or ru-RU (or a locale identifier such as en_US), got \(locale)"
                )
            }
        }

        func run() async throws {
            let topic = topicOptions.topics.settings
            let settings =
                reset
                ? nil
                : UserSettings(
                    locale: locale.flatMap(UserLocale.tag(fromIdentifier:)),
                    voiceServices: voiceServices.isEmpty ? nil : voiceServices)
            let version = version.resolved()
            try await publishSigned(
                to: topic, as: source, sourceKeys: sourceKeys, kafka: kafka, logging: logging
            ) { keys, partitions in
                [
                    KafkaProducerMessage.userSettings(
                        settings, of: user, version: version, topic: topic, partitions: partitions, source: source,
                        signedWith: keys)
                ]
            }
            output(
                reset
                    ? "reset the settings of \(user) on \(topic) at version \(version)"
                    : "\(user) speaks \(settings?.locale ?? "English")\(voiceServices.isEmpty ? "" : " through \(voiceServices.joined(separator: ", "))") (\(topic), version \(version))"
            )
        }
    }
}
