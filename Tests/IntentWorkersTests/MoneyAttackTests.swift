import BrokerTestSupport
import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import Messaging
import Payments
import PipelineAudit
import PipelineTools
import PipelineTopics
import Telemetry
import Testing

/// The attacks of issue 16 against the running workers on a real broker: each
/// is refused, dead-lettered with its reason, and moves no money; the honest
/// flow next to it still works, and the audit of the topics finds nothing.
@Suite("Money safety under attack, against a local broker", .heavyTimeLimit(minutes: 5))
struct MoneyAttackTests {
    static let voice = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(0x33), count: 32)])
    static let bindingKey = BindingKey(Array(repeating: 0x44, count: 32))

    @Test("a swapped payee handle is refused at resolve; the confirmed account is the one credited")
    func payeeHandleSwap() async throws {
        try await withMoneyPipeline { pipeline in
            // 孙波 asks for 200 CNY to "his" account, but the handle is Mallory's.
            try await pipeline.requestSigned(
                pipeline.signed(
                    "swap",
                    .sendPayment(
                        SendPaymentIntent(
                            payee: Person(spoken: "孙波", handle: "mallory@evil.example"),
                            currencyAmount: money("200", "CNY")))))
            let prompt = try await pipeline.event(for: "swap", type: IntentResolutionReport.promptType)
            let payee = try prompt.decodeData(as: IntentResolutionReport.self).parameters.first {
                $0.parameter == "payee"
            }
            #expect(payee?.outcome == .unsupported)
            #expect(payee?.reason == "handleNotOfContact")

            // A contact update giving 孙波 Mallory's handle, not signed by the contacts service
            // (and one signed by the voice service's key): both dead-lettered, the address book unchanged.
            var swapped = Contact(id: "sunbo", displayName: "孙波", handles: ["mallory@evil.example"])
            _ = try await pipeline.send(
                KafkaProducerMessage.contact(
                    swapped, of: "alice", version: pipeline.nextContactVersion(), topic: pipeline.topics.contacts,
                    partitions: PipelineHarness.partitions,
                    source: "/contacts/test",
                    signedWith: EventAuthenticator(keys: ["/contacts/test": Array(repeating: 0x01, count: 32)])))
            swapped.displayName = "孙波 (new)"
            _ = try await pipeline.send(
                KafkaProducerMessage.contact(
                    swapped, of: "alice", version: pipeline.nextContactVersion(), topic: pipeline.topics.contacts,
                    partitions: PipelineHarness.partitions,
                    source: "/voice/test",
                    signedWith: MoneyAttackTests.voice))
            let letters = try await pipeline.deadLetters(count: 2)
            #expect(
                Set(letters.map { $0.header(DeadLetter.reasonHeader) ?? "none" }) == [
                    "unauthenticated", "wrong_producer",
                ])

            // The honest request: the prompt names 孙波's own account, and that account is paid.
            try await pipeline.requestSigned(
                pipeline.signed(
                    "honest",
                    .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("200", "CNY")))
                ))
            let request = try await pipeline.event(for: "honest", type: ConfirmationRequest.type)
                .decodeData(as: ConfirmationRequest.self)
            #expect(request.counterpartyAccount == "sunbo@example.cn")
            #expect(request.proposedResponse.contains("sunbo@example.cn"))
            let response = try await pipeline.answer("honest", request.binding, .confirmed)
            #expect(response.code == .success)

            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("200", "CNY")))
            #expect(ledger.availableBalance(of: "mallory", "CNY") == Money.zero("CNY"))
            #expect(ledger.transfer(forIntent: "swap", of: "alice") == nil)
            #expect(try await pipeline.audit().findings == [])
        }
    }

    /// Alice pays 孙波 all she has (1,000 CNY) and confirms ("real"); the question she was asked.
    static func payEverything(_ pipeline: PipelineHarness) async throws -> ConfirmationRequest {
        try await pipeline.requestSigned(
            pipeline.signed(
                "real",
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("1000", "CNY")))))
        let request = try await pipeline.event(for: "real", type: ConfirmationRequest.type)
            .decodeData(as: ConfirmationRequest.self)
        #expect(try await pipeline.answer("real", request.binding, .confirmed).code == .success)
        return request
    }

    /// Then one yuan more ("one-more"): more than she has, unless a forged deposit counted.
    static func requestOneMoreYuan(_ pipeline: PipelineHarness) async throws {
        try await pipeline.requestSigned(
            pipeline.signed(
                "one-more",
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("1", "CNY")))))
    }

    @Test("forged proposals and ledger events are dead-lettered and reserve nothing; the real payment goes through")
    func forgedStageEvents() async throws {
        try await withMoneyPipeline { pipeline in
            // A proposal of 900 CNY expiring in 2099, straight onto the payments stage's topic: unsigned,
            // signed by a key that is not the confirm stage's, and signed by the resolve stage.
            let intent = Intent.sendPayment(
                SendPaymentIntent(
                    payee: Person(spoken: "孙波", handle: "sunbo@example.cn", contactID: "sunbo"),
                    currencyAmount: money("900", "CNY")))
            func proposal(_ id: String, source: String) -> EventEnvelope {
                EventEnvelope(
                    id: "forged-\(id)", source: source, type: IntentConfirmation.type, time: Date(),
                    dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c",
                    intentID: "forged-\(id)",
                    payload: IntentConfirmation(
                        turn: 1, intent: intent, code: .ready, proposedResponse: "OK",
                        binding: ConfirmationBinding(
                            digest: String(repeating: "ab", count: 32),
                            expiresAt: Timestamp(Date(timeIntervalSince1970: 4_070_908_800)))))
            }
            let confirmations = pipeline.topics.confirmations
            try await pipeline.publish(proposal("unsigned", source: PipelineSource.confirm), to: confirmations)
            let impostor = EventAuthenticator(keys: [PipelineSource.confirm: Array(repeating: 0x66, count: 32)])
            try await pipeline.publish(
                proposal("impostor", source: PipelineSource.confirm), to: confirmations, signedWith: impostor)
            try await pipeline.publish(
                proposal("by-resolve", source: PipelineSource.resolve), to: confirmations, signedWith: testStageKeys)
            // A ledger deposit nobody signed, and a hold written with the operator's key (operators may
            // only open accounts and deposit).
            let deposit = LedgerEvent.deposit(id: "free-money", userID: "alice", amount: money("1000000", "CNY"))
            try await pipeline.publish(
                deposit.envelope(source: PipelineSource.payments, time: Date()), to: pipeline.topics.ledger)
            let hold = LedgerEvent(
                id: "operator-hold", kind: .hold, userID: "alice", intentID: "x", transferID: "tr-x",
                entries: [
                    LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: money("1000", "CNY")),
                    LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: money("1000", "CNY")),
                ], counterpartyUserID: "sunbo", amount: money("1000", "CNY"))
            try await pipeline.publish(
                hold.envelope(source: PipelineSource.ledgerOperator, time: Date()), to: pipeline.topics.ledger,
                signedWith: testStageKeys)

            // Every forged record is parked with its reason (the two ledger records by both followers
            // and not by the payments stage itself: confirm and payments each read the ledger).
            let letters = try await pipeline.deadLetters(count: 7)
            let reasons = letters.map { $0.header(DeadLetter.reasonHeader) ?? "none" }
            #expect(reasons.filter { $0 == "unauthenticated" }.count == 4, "\(reasons)")
            #expect(reasons.filter { $0 == "wrong_producer" }.count == 3, "\(reasons)")

            // The user's real payment of 1,000 CNY: nothing was reserved by the forgeries, nothing deposited.
            _ = try await Self.payEverything(pipeline)
            // And the unsigned million was never deposited: one more yuan is more than Alice has.
            try await Self.requestOneMoreYuan(pipeline)
            let refused = try await pipeline.event(for: "one-more", type: IntentResponse.type)
            #expect(try refused.decodeData(as: IntentResponse.self).code == .failureInsufficientFunds)
            try await pipeline.stopWorker()
        }
    }

    @Test(
        "view keys (all the app state and confirm's ledger hold) forge nothing money moves on: no deposit, proposal or contact"
    )
    func appStateKeysMoveNothing() async throws {
        try await withMoneyPipeline { pipeline in
            // Everything a compromised app state holds, used as both signatures of each forgery.
            let stolen = testViewKeys
            func forged(_ event: EventEnvelope, to topic: String) -> KafkaProducerMessage {
                var record = KafkaProducerMessage(topic: topic, event: event, signedWith: stolen)
                if let view = stolen.signature(for: event) { record.append(view: view) }
                return record
            }
            let deposit = LedgerEvent.deposit(id: "view-money", userID: "alice", amount: money("1000000", "CNY"))
            _ = try await pipeline.send(
                forged(
                    deposit.envelope(source: PipelineSource.ledgerOperator, time: Date()), to: pipeline.topics.ledger))
            let proposal = EventEnvelope(
                id: "view-proposal", source: PipelineSource.confirm, type: IntentConfirmation.type, time: Date(),
                dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c",
                intentID: "view-proposal",
                payload: IntentConfirmation(
                    turn: 1,
                    intent: .sendPayment(
                        SendPaymentIntent(
                            payee: Person(spoken: "孙波", handle: "sunbo@example.cn", contactID: "sunbo"),
                            currencyAmount: money("900", "CNY"))),
                    code: .ready, proposedResponse: "OK",
                    binding: ConfirmationBinding(
                        digest: String(repeating: "ab", count: 32),
                        expiresAt: Timestamp(Date(timeIntervalSince1970: 4_070_908_800)))))
            _ = try await pipeline.send(forged(proposal, to: pipeline.topics.confirmations))
            let contact = ContactRecord.upsertEvent(
                userID: "alice",
                contact: Contact(id: "sunbo", displayName: "孙波", handles: ["mallory@evil.example"]),
                version: pipeline.nextContactVersion(), source: "/contacts/test", time: Date())
            var contactRecord = forged(contact, to: pipeline.topics.contacts)
            contactRecord.key = ContactRecord.key(userID: "alice", contactID: "sunbo")
            contactRecord.partition = KafkaPartitioner.partition(
                forKey: "alice", partitions: PipelineHarness.partitions)
            _ = try await pipeline.send(contactRecord)

            // Each is parked as unauthenticated where it could move money: the deposit by the
            // payments stage's ledger follower, the proposal by the payments stage, the contact by
            // resolve. (The confirm stage reads the ledger by view signatures, like the app state:
            // it takes the deposit, and its view is wrong; below, that moves nothing.)
            let letters = try await pipeline.deadLetters(count: 3)
            #expect(
                letters.map { $0.header(DeadLetter.reasonHeader) } == Array(repeating: "unauthenticated", count: 3),
                "\(letters.map { $0.header(DeadLetter.reasonHeader) ?? "none" })")

            // 孙波 is still 孙波's own account, and Alice has only her own 1,000 CNY.
            let request = try await Self.payEverything(pipeline)
            #expect(request.counterpartyAccount == "sunbo@example.cn")
            // Confirm, misled by the forged deposit, asks; the payments stage, which trusts only
            // the operator's own key, finds no money and refuses.
            try await Self.requestOneMoreYuan(pipeline)
            let asked = try await pipeline.event(for: "one-more", type: ConfirmationRequest.type)
                .decodeData(as: ConfirmationRequest.self)
            #expect(try await pipeline.answer("one-more", asked.binding, .confirmed).code == .failureInsufficientFunds)
            #expect(pipeline.outputs(for: "view-proposal").isEmpty)
            try await pipeline.stopWorker()
        }
    }

    @Test("stale and pre-dated requests are dead-lettered; answers in any order give one final response")
    func freshnessAndOrdering() async throws {
        try await withMoneyPipeline { pipeline in
            let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波")], content: "hi"))
            try await pipeline.requestSigned(pipeline.signed("yesterday", message, at: Date() - 86_400))
            try await pipeline.requestSigned(pipeline.signed("tomorrow", message, at: Date() + 86_400))
            let letters = try await pipeline.deadLetters(count: 2)
            #expect(letters.map { $0.header(DeadLetter.reasonHeader) } == ["stale", "stale"])
            #expect(letters.allSatisfy { $0.header(DeadLetter.fieldHeader) == "$.time" })

            // An answer before any proposal: dead-lettered (not_pending), answered by nothing; the
            // proposal that follows is asked as usual, and the early answer decided nothing.
            let early = EventEnvelope(
                id: "early-answer", source: "/voice/test", type: ConfirmationAnswer.type, time: Date(),
                dataSchema: ConfirmationAnswer.dataSchema, userID: "alice", conversationID: "c", intentID: "early",
                payload: ConfirmationAnswer(
                    decision: .confirmed,
                    binding: ConfirmationBinding(
                        digest: String(repeating: "00", count: 32), expiresAt: Timestamp(Date()))))
            try await pipeline.publish(early, to: pipeline.topics.confirmations, signedWith: Self.voice)
            let notPending = try await pipeline.deadLetters(count: 3)
            #expect(
                notPending.map { $0.header(DeadLetter.reasonHeader) ?? "" }.sorted() == [
                    "not_pending", "stale", "stale",
                ])
            let pay = Intent.sendPayment(
                SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("10", "CNY")))
            try await pipeline.requestSigned(pipeline.signed("early", pay))
            _ = try await pipeline.event(for: "early", type: ConfirmationRequest.type)

            // A real payment answered twice (a redelivery) and then again with another answer.
            try await pipeline.requestSigned(pipeline.signed("twice", pay))
            let request = try await pipeline.event(for: "twice", type: ConfirmationRequest.type)
                .decodeData(as: ConfirmationRequest.self)
            #expect(try await pipeline.answer("twice", request.binding, .confirmed).code == .success)
            try await pipeline.answer("twice", request.binding, .confirmed, id: "answer-twice-confirmed", wait: false)
            try await pipeline.answer("twice", request.binding, .declined, id: "second-thoughts", wait: false)
            // An answer to nothing, after them on Alice's partition of the same topic: once it is
            // dead-lettered, the payments worker has passed every record above.
            try await pipeline.answer("probe", request.binding, .confirmed, wait: false)
            #expect(try await pipeline.deadLetters(count: 4).count == 4)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            let report = try await pipeline.audit()
            #expect(report.findings == [])
            let ledger = try await pipeline.rebuildLedger()
            #expect(
                ledger.transfer(forIntent: "early", of: "alice")?.status == .held, "the early answer decided nothing")
            #expect(try await pipeline.finalResponses(for: "early").isEmpty)
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("10", "CNY")), "paid once")
            let finals = try await pipeline.finalResponses(for: "twice")
            #expect(Set(finals.map(\.id)).count == 1)
            #expect(Set(finals.map { $0.encoded() }).count == 1, "redeliveries repeat the same bytes")
        }
    }
}

/// Alice (1,000 CNY) and 孙波 and Mallory with accounts; Alice's contact 孙波 has his own handle,
/// and 孙波's contact Alice hers; the four stage workers running with per-stage keys and the
/// voice services' keys `voice`.
/// `seed` publishes more before the stages start (they read it as their state at start);
/// `settings` are the settings services' keys the resolve worker takes settings from.
func withMoneyPipeline(
    voice: EventAuthenticator = MoneyAttackTests.voice, settings: EventAuthenticator? = nil,
    voiceBinding: VoiceServiceBinding = .optional,
    seed: (PipelineHarness) async throws -> Void = { _ in }, _ body: (PipelineHarness) async throws -> Void
) async throws {
    try await withPipeline { pipeline in
        try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
        try await pipeline.openAccount("sunbo", handle: "sunbo@example.cn")
        try await pipeline.openAccount("mallory", handle: "mallory@evil.example")
        try await pipeline.publishContacts(
            [Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@example.cn"])], user: "alice")
        try await pipeline.publishContacts(
            [Contact(id: "alice", displayName: "Alice", handles: ["+1 555 0100"])], user: "sunbo")
        try await seed(pipeline)
        try await pipeline.startStages(
            voice: voice, bindingKey: MoneyAttackTests.bindingKey, settings: settings, voiceBinding: voiceBinding)
        try await body(pipeline)
    }
}

extension PipelineHarness {
    /// A request from the voice service, signed, dated `time`.
    func signed(_ intentID: String, _ intent: Intent, at time: Date = Date()) -> EventEnvelope {
        var event = requestEvent(intentID, user: "alice", turn: 1, intent)
        event.time = time
        return event
    }

    /// Publishes a request signed by the voice service.
    func requestSigned(_ event: EventEnvelope) async throws {
        try await publish(event, to: topics.requested, signedWith: MoneyAttackTests.voice)
    }

    /// The user's answer to a confirmation request; returns the final response unless `wait` is false.
    @discardableResult
    func answer(
        _ intentID: String, _ binding: ConfirmationBinding, _ decision: ConfirmationAnswer.Decision,
        id: String? = nil, wait: Bool = true
    ) async throws -> IntentResponse {
        let event = EventEnvelope(
            id: id ?? "answer-\(intentID)-\(decision)", source: "/voice/test", type: ConfirmationAnswer.type,
            time: Date(), dataSchema: ConfirmationAnswer.dataSchema, userID: "alice", conversationID: "c",
            intentID: intentID, payload: ConfirmationAnswer(decision: decision, binding: binding))
        try await publish(event, to: topics.confirmations, signedWith: MoneyAttackTests.voice)
        guard wait else { return IntentResponse(kind: .sendPayment, code: .inProgress, message: "not awaited") }
        return try await self.event(for: intentID, type: IntentResponse.type).decodeData(as: IntentResponse.self)
    }

    /// Every final response of an intent on the responses topic, read from the beginning.
    func finalResponses(for intentID: String) async throws -> [EventEnvelope] {
        let (events, _) = try await TopicReader.events(
            of: topics.responses, configuration: clientConfiguration(broker), logger: testLogger)
        return events.filter {
            $0.intentID == intentID && ((try? $0.decodeData(as: IntentResponse.self).code.isFinal) ?? false)
        }
    }

    /// The audit of this pipeline's topics, checking bindings with `bindingKey`.
    func audit(bindingKey: BindingKey = MoneyAttackTests.bindingKey) async throws -> PipelineAudit.Report {
        try await TopicAudit.run(
            topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys,
            bindingKey: bindingKey)
    }

    /// The resolve, confirm, payments and handle workers, in-process, with per-stage keys;
    /// resolve also takes settings signed with `settings`; all report to `telemetry`. Started
    /// again after `stopWorker()`, they are new instances of the same consumer groups. The voice
    /// binding is optional unless a test says otherwise: these tests are about other attacks,
    /// and enrolling every user of every test would hide what each one shows (the binding's own
    /// tests, and every test that runs the workers as processes, run it required).
    func startStages(
        voice: EventAuthenticator, bindingKey: BindingKey, settings: EventAuthenticator? = nil,
        voiceBinding: VoiceServiceBinding = .optional, telemetry: Telemetry = .current
    ) async throws {
        let kafka = clientConfiguration(broker)
        let resolveKeys = EventAuthenticator(keys: voice.withTestContacts.allKeys + (settings?.allKeys ?? []))
        try await start(
            [
                ResolveWorker(
                    configuration: ResolveWorker.Configuration(
                        kafka: kafka, topics: topics, groupID: "\(stageGroups)-resolve", authenticator: resolveKeys,
                        keys: testStageKeys, sessionTimeout: .seconds(6), voiceBinding: voiceBinding),
                    logger: testLogger),
                ConfirmWorker(
                    configuration: ConfirmWorker.Configuration(
                        kafka: kafka, topics: topics, groupID: "\(stageGroups)-confirm",
                        stage: ConfirmStage(bindingKey: bindingKey, authenticator: testStageKeys), keys: testStageKeys,
                        sessionTimeout: .seconds(6)),
                    logger: testLogger),
                PaymentsWorker(
                    configuration: PaymentsWorker.Configuration(
                        kafka: kafka, topics: topics, groupID: "\(stageGroups)-payments",
                        stage: PaymentsStage(bindingKey: bindingKey, authenticator: voice, stages: testStageKeys),
                        keys: testStageKeys, sessionTimeout: .seconds(6)),
                    logger: testLogger),
                HandleWorker(
                    configuration: HandleWorker.Configuration(
                        kafka: kafka, topics: topics, groupID: "\(stageGroups)-handle",
                        stage: HandleStage(authenticator: testStageKeys), keys: testStageKeys,
                        sessionTimeout: .seconds(6)),
                    logger: testLogger),
            ], telemetry: telemetry)
    }
}
