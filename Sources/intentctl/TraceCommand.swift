import ArgumentParser
import CommandLineSupport
import Foundation
import PipelineAudit

/// One intent's timeline across every pipeline topic, for an operator asking
/// "where is this intent, and which hop was slow?".
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Print one intent's timeline across every pipeline topic: each event, its worker, each hop's time.",
        discussion: """
            Reads every pipeline topic as it is now (read-only: no group, no topic created) and prints the events \
            whose intentid is INTENT-ID in the order they were published: the time since the first, the hop \
            that produced each (time since the previous), the topic, partition and offset, the event type, and \
            the source that published it; dead letters of the intent with their reason. With the intent's \
            traceparent (a CloudEvents extension attribute), its W3C trace id first. --json prints one JSON \
            object per event instead. Exits 1 when no event is about the intent.
            """)

    @Argument(help: "The intent id (the envelope's intentid).") var intentID: String
    @Flag(help: "One JSON object per event instead of text.") var json = false
    @OptionGroup var topicOptions: TopicOptions
    @OptionGroup var kafka: KafkaOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = try logging.makeLogger(label: "intentctl.trace")
        let topics = topicOptions.topics
        let timeline = try await IntentTimeline.read(
            intentID: intentID, topics: topics.all, deadLetterTopic: topics.deadLetter,
            configuration: try kafka.configuration(), logger: logger)
        guard !timeline.steps.isEmpty else {
            throw CommandFailure("no event about intent \(intentID) on \(topics.all.joined(separator: ", "))")
        }
        if json {
            timeline.jsonLines.forEach(output)
        } else {
            output("intent \(intentID)" + (timeline.traceID.map { ", trace \($0)" } ?? ""))
            timeline.lines.forEach(output)
        }
    }
}
