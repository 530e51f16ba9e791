import Foundation
public import IntentEvents
public import Intents
public import Kafka
import Localization
public import Logging
public import PipelineTopics
import Synchronization

/// A stand-in for a voice service: publishes each step's intent (signed with
/// the source's key), answers prompts and confirmation requests as the
/// script says, and reports the dialog as a transcript. Used by
/// `intentctl voice`, `make demo` and the end-to-end tests.
public final class VoiceSimulator: Sendable {
    public struct Outcome: Sendable {
        public var transcript: [String] = []
        public var failures: [String] = []
        public var responses: [String: IntentResponse] = [:]
        public var succeeded: Bool { failures.isEmpty }
    }

    private let producer: KafkaProducer
    private let reader: KafkaConsumer
    private let topics: PipelineTopics
    private let authenticator: EventAuthenticator
    private let source: String
    private let runID: String
    private let stepTimeout: Duration
    private let print: @Sendable (String) -> Void
    private let inbox = Mutex<[String: [EventEnvelope]]>([:])
    /// Steps played so far, over every script: each step is a new intent, so a second
    /// script played by the same simulator must not reuse the first one's intent ids.
    private let stepsPlayed = Mutex(0)

    public init(
        configuration: KafkaConfiguration, topics: PipelineTopics, authenticator: EventAuthenticator, source: String,
        stepTimeout: Duration = .seconds(60), logger: Logger, print: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.topics = topics
        self.authenticator = authenticator
        self.source = source
        self.stepTimeout = stepTimeout
        self.print = print
        runID = String(UUID().uuidString.prefix(8)).lowercased()
        producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: configuration), logger: logger)
        reader = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: configuration, groupID: "voice-simulator-\(runID)", offsetReset: .earliest,
                sessionTimeout: .seconds(6)),
            logger: logger)
        try reader.subscribe(topics: [topics.prompts, topics.responses])
    }

    public func close() async {
        await reader.close()
        await producer.shutdown()
    }

    /// Plays the script, one step after the other.
    public func play(_ script: VoiceScript) async throws -> Outcome {
        var outcome = Outcome()
        try await waitForAssignment()
        for step in script.steps {
            let number = stepsPlayed.withLock { played in
                played += 1
                return played
            }
            try await play(step, intentID: "voice-\(runID)-\(number)", into: &outcome)
        }
        return outcome
    }

    private func say(_ line: String, _ outcome: inout Outcome) {
        outcome.transcript.append(line)
        print(line)
    }

    private func play(_ step: VoiceScript.Step, intentID: String, into outcome: inout Outcome) async throws {
        var intent = step.intent
        var turn = 1
        var answers = step.answers ?? []
        say("\(step.user): \(step.say)", &outcome)
        try await request(step, intent: intent, turn: turn, intentID: intentID)
        let deadline = ContinuousClock.now + stepTimeout
        while true {
            guard let event = try await next(for: intentID, until: deadline) else {
                outcome.failures.append("\(intentID) (\(step.say)): no final response within \(stepTimeout)")
                say("  ✘ no answer from the assistant", &outcome)
                return
            }
            switch event.type {
            case IntentResolutionReport.promptType:
                let report = try event.decodeData(as: IntentResolutionReport.self)
                // The question as the resolve stage worded it, in the request's locale.
                let question = report.parameters.filter(\.outcome.needsUser).compactMap(\.message)
                say("  assistant: \(question.joined(separator: " "))", &outcome)
                guard !answers.isEmpty else {
                    outcome.failures.append("\(intentID): the assistant asked, but the script has no answer left")
                    return
                }
                let answer = answers.removeFirst()
                intent = try Self.apply(answer, to: intent, report: report)
                say("  \(step.user): \(Self.describe(answer, report))", &outcome)
                turn += 1
                try await request(step, intent: intent, turn: turn, intentID: intentID)
            case ConfirmationRequest.type:
                let confirmation = try event.decodeData(as: ConfirmationRequest.self)
                say("  assistant: \(confirmation.proposedResponse)", &outcome)
                let answer = answers.isEmpty ? VoiceScript.Answer() : answers.removeFirst()
                let confirmed = answer.confirm ?? false
                var binding = confirmation.binding
                if answer.tamper == true { binding.digest = String(binding.digest.reversed()) }
                // The user answers in the language of the question (the request's, or the one the
                // user chose in settings), and says so on the answer, as a voice service does.
                let locale = step.locale ?? UserLocale.of(event)
                let said = MessageRenderer(locale: locale).render(LocalizedMessage(confirmed ? .answerYes : .answerNo))
                say("  \(step.user): \(said)\(answer.tamper == true ? " (with a tampered binding)" : "")", &outcome)
                var reply = EventEnvelope(
                    id: "\(intentID)-answer-\(turn)", source: source, type: ConfirmationAnswer.type, time: Date(),
                    dataSchema: ConfirmationAnswer.dataSchema, userID: step.user, conversationID: "voice-\(runID)",
                    intentID: intentID,
                    payload: ConfirmationAnswer(decision: confirmed ? .confirmed : .declined, binding: binding))
                try Self.setLocale(locale, on: &reply)
                _ = try await producer.send(
                    KafkaProducerMessage(topic: topics.confirmations, event: reply, signedWith: authenticator))
            case IntentResponse.type:
                let response = try event.decodeData(as: IntentResponse.self)
                let reason = response.reason.map { ", \($0)" } ?? ""
                say("  assistant: \(response.message) [\(response.code.rawValue)\(reason)]", &outcome)
                if response.code == .inProgress { continue }
                outcome.responses[intentID] = response
                if let expected = step.expect, expected != response.code {
                    outcome.failures.append(
                        "\(intentID) (\(step.say)): expected \(expected.rawValue), got \(response.code.rawValue)")
                }
                if let expected = step.expectReason, expected != response.reason {
                    outcome.failures.append(
                        "\(intentID) (\(step.say)): expected reason \(expected), got \(response.reason ?? "none")")
                }
                return
            default:
                continue
            }
        }
    }

    private func request(_ step: VoiceScript.Step, intent: JSONValue, turn: Int, intentID: String) async throws {
        let decoded = try JSONDecoder().decode(Intent.self, from: Data(CanonicalJSON.encode(intent)))
        var event = EventEnvelope(
            id: "\(intentID)-turn-\(turn)", source: source, type: IntentRequested.type, time: Date(),
            dataSchema: IntentRequested.dataSchema, userID: step.user, conversationID: "voice-\(runID)",
            intentID: intentID, payload: IntentRequested(turn: turn, intent: decoded))
        try Self.setLocale(step.locale, on: &event)
        _ = try await producer.send(
            KafkaProducerMessage(topic: topics.requested, event: event, signedWith: authenticator))
    }

    /// The user's language on an event the user sends, as a voice service sets it.
    private static func setLocale(_ locale: String?, on event: inout EventEnvelope) throws {
        guard let locale else { return }
        guard UserLocale.isWellFormed(locale) else { throw SimulatorError("\(locale) is not a BCP 47 language tag") }
        UserLocale.stamp(locale, on: &event)
    }

    /// The next prompt, confirmation request or response for the intent, or nil at the deadline.
    private func next(for intentID: String, until deadline: ContinuousClock.Instant) async throws -> EventEnvelope? {
        while ContinuousClock.now < deadline {
            if let event = inbox.withLock({ inbox -> EventEnvelope? in
                guard var events = inbox[intentID], !events.isEmpty else { return nil }
                let first = events.removeFirst()
                inbox[intentID] = events
                return first
            }) {
                return event
            }
            for message in try await reader.poll(timeout: .milliseconds(200)) {
                // From the topics' start (a reader starting at their end can miss an answer
                // published between its assignment and its first fetch), keeping this run's only.
                guard let event = try? EventEnvelope.decode(message.value ?? []), let id = event.intentID,
                    id.hasPrefix("voice-\(runID)-")
                else {
                    continue
                }
                inbox.withLock { $0[id, default: []].append(event) }
            }
        }
        return nil
    }

    /// The reader is assigned before the first intent goes out, so the first answers are not
    /// waited for behind a group join.
    private func waitForAssignment() async throws {
        let deadline = ContinuousClock.now + stepTimeout
        while try reader.assignment().isEmpty {
            guard ContinuousClock.now < deadline else { throw SimulatorError("no partitions assigned to the reader") }
            _ = try await reader.poll(timeout: .milliseconds(200))
        }
    }

    // MARK: Answers

    static func describe(_ answer: VoiceScript.Answer, _ report: IntentResolutionReport) -> String {
        if let pick = answer.pick {
            let name = report.parameters.first { $0.candidates?.isEmpty == false }?.candidates?[safe: pick - 1]?
                .displayName
            return "number \(pick)\(name.map { ", \($0)" } ?? "")"
        }
        if let value = answer.value {
            return value.map { "\($0.key) = \(String(decoding: CanonicalJSON.encode($0.value), as: UTF8.self))" }
                .sorted().joined(separator: ", ")
        }
        return "…"
    }

    /// The intent with the answer filled in: a picked candidate's contact id, or the values given.
    static func apply(_ answer: VoiceScript.Answer, to intent: JSONValue, report: IntentResolutionReport) throws
        -> JSONValue
    {
        guard case .object(var object) = intent else { throw SimulatorError("the intent must be an object") }
        if let pick = answer.pick {
            guard let parameter = report.parameters.first(where: { $0.candidates?.isEmpty == false }),
                let candidate = parameter.candidates?[safe: pick - 1]
            else { throw SimulatorError("nothing to pick number \(pick) from") }
            try setContact(candidate.contactID, at: parameter.parameter, in: &object)
        }
        for (key, value) in answer.value ?? [:] { object[key] = value }
        return .object(object)
    }

    /// Sets `contactID` on the person at `payee` or `recipients[1]`.
    private static func setContact(_ contactID: String, at path: String, in object: inout [String: JSONValue]) throws {
        let parts = path.split(separator: "[")
        let name = String(parts[0])
        if parts.count == 1 {
            guard case .object(var person) = object[name] ?? .object([:]) else {
                throw SimulatorError("\(path) is not a person")
            }
            person["contactID"] = .string(contactID)
            object[name] = .object(person)
            return
        }
        guard let index = Int(parts[1].dropLast()), case .array(var people) = object[name],
            people.indices.contains(index),
            case .object(var person) = people[index]
        else { throw SimulatorError("\(path) is not a person") }
        person["contactID"] = .string(contactID)
        people[index] = .object(person)
        object[name] = .array(people)
    }
}

struct SimulatorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
