import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import VoiceSimulator

/// The simulated voice service.
struct VoiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice",
        abstract: "Play a scripted conversation through the pipeline, as a voice service would, and print it.",
        discussion: """
            SCRIPT is JSON: {"steps": [{"user", "say", "intent" (with "kind"), "answers"?: [{"pick": N} | \
            {"value": {...}} | {"confirm": true|false, "tamper"?: true}], "expect"?: "success", "expectReason"?}]}. \
            Each step's intent is published signed with the source's key (INTENT_SOURCE_KEYS_FILE or \
            INTENT_SOURCE_KEYS); prompts and confirmation requests are answered in order; the transcript goes to \
            standard output. Exits 1 when a step did not end as the script expects.
            """)

    @Option(help: ArgumentHelp("The conversation script.", valueName: "SCRIPT")) var script: String
    @Option(help: "The voice service's source name (its key signs the events).") var source = "/voice/demo"
    @OptionGroup var sourceKeys: SourceKeyOptions
    @Option(help: "Seconds to wait for each step to finish.") var stepTimeout = 60
    @OptionGroup var topicOptions: TopicOptions
    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let loaded: VoiceScript
        do {
            loaded = try VoiceScript.load(Data(contentsOf: URL(fileURLWithPath: script)))
        } catch {
            throw ValidationError("Cannot read the script \(script): \(error)")
        }
        let authenticator = try sourceKeys.authenticator()
        guard authenticator.sources.contains(source) else {
            throw ValidationError(
                "No key for source \(source); keys exist for \(authenticator.sources.joined(separator: ", ")).")
        }
        let simulator = try VoiceSimulator(
            configuration: kafka.configuration(clientID: "intentctl-voice"), topics: topicOptions.topics,
            authenticator: authenticator, source: source, stepTimeout: .seconds(stepTimeout),
            logger: logging.makeLogger(label: "intentctl.voice"), print: { output($0) })
        let outcome: VoiceSimulator.Outcome
        do {
            outcome = try await simulator.play(loaded)
            await simulator.close()
        } catch {
            await simulator.close()
            throw error
        }
        if outcome.succeeded {
            output("✔ the conversation went as scripted (\(loaded.steps.count) steps)")
        } else {
            for failure in outcome.failures { output("✘ \(failure)") }
            throw ExitCode(1)
        }
    }
}
