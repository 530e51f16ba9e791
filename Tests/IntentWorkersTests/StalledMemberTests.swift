import AppState
import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Payments
import PipelineAudit
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Testing

/// Issue 28, point 9: a payments member that lost its partitions without noticing
/// (stopped past its session, then resumed) cannot post or void for them. Every
/// worker runs as its own OS process, as deploy/ runs them; the payments member
/// stops itself (SIGSTOP) with a post decided and not yet written, a second member
/// takes its partitions over and decides the payment its own way (it starts once the
/// user's time to confirm has run out, so it does not pay), and the first is resumed.
@Suite("A stalled payments member cannot decide", .heavyTimeLimit(minutes: 10), .longHeavyTest)
struct StalledMemberTests {
    static let payer = "user-3"
    static let payee = "user-7"

    /// How the stalled member reads its input: record by record (the hold and the post in
    /// rounds of their own), or waiting for more (`fetch.min.bytes` it never reaches, up to
    /// four seconds), as a loaded member does, so the proposal and the user's answer come in
    /// one batch and the hold and the post go in one round. CI met the second once, and the
    /// test then stopped the member at the wrong round.
    enum Batching: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case apart = "the hold and the post apart"
        case together = "the hold and the post in one round"

        var testDescription: String { rawValue }

        var environment: [String: String] {
            switch self {
            case .apart: [:]
            case .together: ["KAFKA_FETCH_MIN_BYTES": "1000000", "KAFKA_FETCH_WAIT_MAX_MS": "4000"]
            }
        }
    }

    @Test(
        "the resumed member writes nothing that counts and sends no response or credit",
        arguments: Batching.allCases)
    func stalledMemberIsFenced(batching: Batching) async throws {
        try await withBroker { broker in
            // One partition: the second member gets it only once the first is out of the group.
            let topics = PipelineTopics(prefix: uniqueName("stall") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                try await $0.createTopics(topics.specifications(partitions: 1))
            }
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            _ = try await producer.sendAll(Self.accounts(topics))
            defer { Task { await producer.shutdown() } }
            let directory = testFileURL(uniqueName("stall"))
            let launcher = try WorkerLauncher(
                binaries: WorkerLauncher.binaries(), directory: directory, bootstrapServers: broker.bootstrapServers,
                topicPrefix: topics.prefix,
                keys: .loadFixture,
                groupSuffix: String(UUID().uuidString.prefix(8)),
                environment: ["KAFKA_HEARTBEAT_INTERVAL_MS": "500"])
            func log(_ name: String) -> URL { directory.appendingPathComponent("\(name).log") }
            // Twenty seconds to confirm: the first member posts in time; the second is started
            // only once the confirmation has expired, so it decides otherwise (it does not pay).
            let workers = [
                try launcher.launch("resolve", logFile: log("resolve")),
                try launcher.launch("confirm", arguments: ["--confirmation-window", "20"], logFile: log("confirm")),
                try launcher.launch("handle", logFile: log("handle")),
            ]
            // The stalling member is the payments worker's own command line in the tests' fault host.
            let stalled = try launcher.launch(
                "fault-host", arguments: ["payments"], logFile: log("payments-1"),
                extraEnvironment: batching.environment.merging(["INTENT_STALL_BEFORE_LEDGER_POST": "1"]) { $1 })
            defer { Task { for worker in workers + [stalled] { await worker.stop() } } }
            // Ready: the member holds the partition (so its first decision comes at once).
            try await Self.await("the first payments member holds the partition", timeout: .seconds(120)) {
                Self.holdsPartition(log("payments-1"))
            }
            let voice = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: uniqueName("voice")), logger: testLogger)
            defer { Task { await voice.close() } }
            try voice.subscribe(topics: [topics.prompts, topics.responses])

            // The member stops before the ledger round with the post the user's answer decides
            // (the hold goes in an earlier round, or in the same one when both came in one batch).
            let intentID = uniqueName("stalled-pay")
            let request = EventEnvelope(
                id: "request-\(intentID)", source: "/voice/load", type: IntentRequested.type, time: Date(),
                dataSchema: IntentRequested.dataSchema, userID: Self.payer, conversationID: "stall-\(Self.payer)",
                intentID: intentID,
                payload: IntentRequested(
                    turn: 1,
                    intent: .sendPayment(
                        SendPaymentIntent(
                            payee: Person(spoken: Self.payee, contactID: "c-\(Self.payee)"),
                            currencyAmount: CurrencyAmount(amount: DecimalAmount("10.25")!, currency: "CNY")))))
            _ = try await producer.send(
                KafkaProducerMessage(
                    topic: topics.requested, event: request, signedWith: LoadFixture.authenticator))
            let question = try await Self.next(voice, intentID, type: ConfirmationRequest.type)
            let binding = try question.decodeData(as: ConfirmationRequest.self).binding
            let answer = EventEnvelope(
                id: "answer-\(intentID)", source: "/voice/load", type: ConfirmationAnswer.type, time: Date(),
                dataSchema: ConfirmationAnswer.dataSchema, userID: Self.payer,
                conversationID: question.conversationID, intentID: intentID,
                payload: ConfirmationAnswer(decision: .confirmed, binding: binding))
            _ = try await producer.send(
                KafkaProducerMessage(
                    topic: topics.confirmations, event: answer, signedWith: LoadFixture.authenticator))

            // The first member decides the post and stops itself before writing it.
            try await Self.await("the first payments member stopped itself", timeout: .seconds(60)) {
                Self.isStopped(stalled.pid)
            }
            // The second member decides after the user's time ran out (a clock condition, not a sync).
            try await Self.await("the confirmation expired", timeout: .seconds(60)) {
                Timestamp(Date()) > binding.expiresAt
            }
            let taker = try launcher.launch("payments", logFile: log("payments-2"))
            defer { Task { await taker.stop() } }
            // The second member takes the partition over (once the first is out of the group:
            // a session timeout after it stopped) and decides the payment.
            try await Self.await("the second payments member holds the partition", timeout: .seconds(120)) {
                Self.holdsPartition(log("payments-2"))
            }
            #expect(Self.isStopped(stalled.pid), "the first member was resumed before the second took over")
            let final = try await Self.next(voice, intentID, type: IntentResponse.type, timeout: .seconds(120)) {
                (try? $0.decodeData(as: IntentResponse.self))?.code.isFinal == true
            }
            let decided = try final.decodeData(as: IntentResponse.self)
            print("stalled member test: the second member decided \(decided.code.rawValue) (\(decided.reason ?? "-"))")

            // Resumed, the member either writes its round first, reads it back behind the newer
            // claim and stops ("fenced"), or first learns it lost the partition: librdkafka's own
            // timer finds the session expired before the loop gets to publish (seen under load,
            // session 18), so the round is dropped unwritten and the member rejoins the group
            // with nothing assigned, and runs on. Both are right; running on is allowed only
            // when the loss came after the stall point, and the checks below hold either way.
            stalled.resume()
            let status = await stalled.waitForExit(within: .seconds(60))
            let stalledLog = (try? String(contentsOf: log("payments-1"), encoding: .utf8)) ?? ""
            if status == nil {
                let afterStall = stalledLog.components(separatedBy: "stall point:").dropFirst().joined()
                #expect(
                    afterStall.contains("partitions lost") || afterStall.contains("partitions revoked"),
                    "the resumed member kept running without losing its partition: \(stalled.logTail())")
                print("stalled member test: the resumed member lost its partition first and runs on")
            } else {
                #expect(status != 0, "the resumed member exited 0: \(stalled.logTail())")
                #expect(stalledLog.contains("fenced"), "no fencing in the resumed member's log: \(stalled.logTail())")
            }

            // Every member stopped (the resumed one too, if it still runs): nothing can land after this.
            for worker in workers + [taker, stalled] { await worker.stop() }
            let report = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys,
                bindingKey: BindingKey(LoadFixture.bindingKey))
            #expect(report.findings == [], "\(report.findings)")
            #expect(report.heldTransfers == 0)
            // Exactly the second member's decision: one final response, and the money as it says.
            let finals = try await TopicReader.events(
                of: topics.responses, configuration: clientConfiguration(broker), logger: testLogger
            ).events.filter {
                $0.intentID == intentID && (try? $0.decodeData(as: IntentResponse.self))?.code.isFinal == true
            }
            #expect(Set(finals.map(\.id)) == [final.id], "\(finals.map(\.id))")
            #expect(Set(finals.map { $0.encoded() }).count == 1, "one final response, one content")
            #expect(report.postedIntents == (decided.code == .success ? [intentID] : []), "\(decided.code)")
            // The credits on their way to the payee are the posted ones' only.
            let credits = try await TopicReader.events(
                of: topics.confirmations, configuration: clientConfiguration(broker), logger: testLogger
            ).events.compactMap { try? $0.decodeData(as: LedgerEvent.self) }
                .filter { $0.kind == .credit && $0.intentID == intentID }
            #expect(Set(credits.map(\.id)).count == (decided.code == .success ? 1 : 0), "\(credits.map(\.id))")
            // The page shows the second member's decision too: the app state applies the ledger
            // topic as written, the resumed member's records included, under the same claims.
            let ledger = try await TopicReader.events(
                of: topics.ledger, configuration: clientConfiguration(broker), logger: testLogger
            ).events
            var ownership = LedgerOwnership()
            let fencedWrites = ledger.filter { event in
                (try? event.decodeData(as: LedgerEvent.self)).map { ownership.admit($0) != nil } == true
            }
            print("stalled member test: fenced ledger events on the topic: \(fencedWrites.map(\.id))")
            // Running on is right only if its round was dropped unwritten: nothing of it is on the ledger.
            if status == nil { #expect(fencedWrites.isEmpty, "\(fencedWrites.map(\.id))") }
            let page = try AppStateStore(path: ":memory:")
            for event in ledger { try await page.apply(event) }
            let payer = try #require(try await page.snapshot(of: Self.payer).objectValue?["balances"]?.arrayValue)
            let expected = decided.code == .success ? "89.75" : "100"
            #expect(
                payer == [.object(["currency": "CNY", "available": .string(expected), "held": "0"])],
                "\(payer)")
        }
    }

    /// The payer's and the payee's accounts (100 CNY each), the payee as the payer's contact,
    /// and the payer enrolled with the voice service.
    static func accounts(_ topics: PipelineTopics) -> [KafkaProducerMessage] {
        var records: [KafkaProducerMessage] = [.enrollment(payer, topics: topics, partitions: 1)]
        for user in [payer, payee] {
            records += KafkaProducerMessage.accountOpening(
                user, handles: ["\(user)@example.com"],
                deposits: [CurrencyAmount(amount: DecimalAmount("100")!, currency: "CNY")], topics: topics,
                signedWith: testStageKeys)
        }
        let contact = Contact(id: "c-\(payee)", displayName: payee, handles: ["\(payee)@example.com"])
        records.append(
            KafkaProducerMessage.contact(
                contact, of: payer, version: 1, topic: topics.contacts, partitions: 1, source: "/contacts/test",
                signedWith: testContactsKeys))
        return records
    }

    /// Whether a payments member's log says it restored the state of partition 0 (it
    /// claims the partition right after, before its first decision).
    static func holdsPartition(_ log: URL) -> Bool {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return false }
        return text.split(separator: "\n").contains {
            $0.contains("state restored for the assigned partitions") && $0.contains("partitions=[0]")
        }
    }

    /// Whether the process is stopped (SIGSTOP): state `T` in /proc/PID/stat.
    static func isStopped(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)...].first == "T"
    }

    /// Polls `condition` until it holds (a state outside this process: a log line, a process state).
    static func await(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(50))  // polling another process's state
        }
    }

    /// The next event of `type` for the intent on the voice side's subscription.
    static func next(
        _ voice: KafkaConsumer, _ intentID: String, type: String, timeout: Duration = .seconds(60),
        where accept: (EventEnvelope) -> Bool = { _ in true }
    ) async throws -> EventEnvelope {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for message in try await voice.poll(maxMessages: 100, timeout: .milliseconds(200)) {
                guard let event = try? EventEnvelope.decode(message.value ?? []), event.intentID == intentID,
                    event.type == type, accept(event)
                else { continue }
                return event
            }
        }
        Issue.record("no \(type) for \(intentID) within \(timeout)")
        throw CancellationError()
    }
}
