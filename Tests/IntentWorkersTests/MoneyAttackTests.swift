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
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Telemetry
import Testing

/// The attacks of issue 16 against the running workers on a real broker, all through one
/// broker and one pipeline: each is refused, dead-lettered with its reason, and moves no
/// money; the honest flow next to them still works.
@Suite("Money safety under attack, against a local broker", .heavyTimeLimit(minutes: 5))
struct MoneyAttackTests {
    static let voice = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(0x33), count: 32)])
    static let bindingKey = BindingKey(Array(repeating: 0x44, count: 32))

    /// Every attack of issue 16 through one broker and one pipeline (one set of group joins):
    /// each input is refused with its reason and moves no money, the honest payments beside
    /// them go through, and the audit of the topics finds nothing but the forgeries (each step
    /// checks the dead letters so far: ``DeadLetterTally``). The stage logic's variants run on
    /// the simulated pipeline
    /// (`MoneyAttackSimulationTests`, the hostile input of `PipelineSimulationTests`).
    @Test("swapped handles, forged stage events and ledger records, view keys, stale requests and stray answers")
    func attacksThroughOnePipeline() async throws {
        try await withMoneyPipeline { pipeline in
            var letters = DeadLetterTally(pipeline)
            try await Self.payeeHandleSwap(pipeline, &letters)
            try await Self.freshnessAndOrdering(pipeline, &letters)
            try await Self.forgedStageEvents(pipeline, &letters)
            try await Self.appStateKeys(pipeline, &letters)

            // Everything Alice has left (1,000 - 200 swapped-then-honest - 10 held early - 10 twice):
            // nothing was reserved or deposited by a forgery; one yuan more is refused by the payments
            // stage, which trusts only the operator's own key (confirm, misled by the view-key
            // deposit, asks).
            let request = try await Self.pay(pipeline, "real", "780")
            #expect(request.counterpartyAccount == "sunbo@example.cn")
            #expect(try await pipeline.answer("real", request.binding, .confirmed).code == .success)
            let oneMore = try await Self.pay(pipeline, "one-more", "1")
            #expect(
                try await pipeline.answer("one-more", oneMore.binding, .confirmed).code == .failureInsufficientFunds)

            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("990", "CNY")), "200 + 10 + 780")
            #expect(ledger.availableBalance(of: "mallory", "CNY") == Money.zero("CNY"))
            #expect(ledger.transfer(forIntent: "swap", of: "alice") == nil)
            #expect(
                ledger.transfer(forIntent: "early", of: "alice")?.status == .held, "the early answer decided nothing")
            #expect(try await pipeline.finalResponses(for: "early").isEmpty)
            let finals = try await pipeline.finalResponses(for: "twice")
            #expect(Set(finals.map(\.id)).count == 1)
            #expect(Set(finals.map { $0.encoded() }).count == 1, "redeliveries repeat the same bytes")
            #expect(pipeline.outputs(for: "view-proposal").isEmpty)
            // The audit names each forgery on the topics it reads, and finds nothing else.
            let forgeries = [
                "forged-unsigned", "forged-impostor", "forged-by-resolve", "view-proposal", "free-money",
                "operator-hold", "view-money",
            ]
            let findings = try await pipeline.audit().findings
            #expect(findings.count >= 4, "\(findings)")
            // Named by the integrity check ("(event ID)") or, for a signed record from a source
            // that may not write it, by the rules that would have counted it ("record ID ").
            let named = { (finding: String) in
                forgeries.contains { finding.contains("(event \($0))") || finding.contains("record \($0) ") }
            }
            #expect(findings.filter { !named($0) } == [])
            #expect(findings.contains { $0.hasPrefix("ledger record operator-hold is one no reader applies") })
        }
    }

    /// Alice asks to pay 孙波 `amount` CNY; returns the confirmation request.
    static func pay(_ pipeline: PipelineHarness, _ intentID: String, _ amount: String) async throws
        -> ConfirmationRequest
    {
        try await pipeline.requestSigned(
            pipeline.signed(
                intentID,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money(amount, "CNY")))))
        return try await pipeline.event(for: intentID, type: ConfirmationRequest.type)
            .decodeData(as: ConfirmationRequest.self)
    }

    /// A swapped payee handle is refused at resolve, contact updates giving 孙波 Mallory's handle
    /// are dead-lettered, and the honest request names and pays 孙波's own account (200 CNY).
    static func payeeHandleSwap(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws {
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
        try await deadLetters.expect(["unauthenticated", "wrong_producer"])

        // The honest request: the prompt names 孙波's own account, and that account is paid.
        let request = try await pay(pipeline, "honest", "200")
        #expect(request.counterpartyAccount == "sunbo@example.cn")
        #expect(request.proposedResponse.contains("sunbo@example.cn"))
        #expect(try await pipeline.answer("honest", request.binding, .confirmed).code == .success)
    }

    /// Stale and pre-dated requests are dead-lettered; an answer before its proposal decides
    /// nothing ("early" stays held); answers in any order give "twice" one final response.
    static func freshnessAndOrdering(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws {
        let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波")], content: "hi"))
        try await pipeline.requestSigned(pipeline.signed("yesterday", message, at: Date() - 86_400))
        try await pipeline.requestSigned(pipeline.signed("tomorrow", message, at: Date() + 86_400))
        let letters = try await deadLetters.expect(["stale", "stale"])
        #expect(
            letters.filter { $0.header(DeadLetter.reasonHeader) == "stale" }.allSatisfy {
                $0.header(DeadLetter.fieldHeader) == "$.time"
            })

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
        try await deadLetters.expect(["not_pending"])
        _ = try await pay(pipeline, "early", "10")

        // A real payment answered twice (a redelivery) and then again with another answer.
        let request = try await pay(pipeline, "twice", "10")
        #expect(try await pipeline.answer("twice", request.binding, .confirmed).code == .success)
        try await pipeline.answer("twice", request.binding, .confirmed, id: "answer-twice-confirmed", wait: false)
        try await pipeline.answer("twice", request.binding, .declined, id: "second-thoughts", wait: false)
        // An answer to nothing, after them on Alice's partition of the same topic: once it is
        // dead-lettered, the payments worker has passed every record above.
        try await pipeline.answer("probe", request.binding, .confirmed, wait: false)
        try await deadLetters.expect(["not_pending"])
    }

    /// Proposals straight onto the payments stage's topic (unsigned, signed by a key that is not
    /// the confirm stage's, signed by the resolve stage), a ledger deposit nobody signed, and a hold
    /// written with the operator's key (operators may only open accounts and deposit): each parked
    /// with its reason (the two ledger records by both followers: confirm and payments each read the
    /// ledger, and not by the payments stage itself).
    static func forgedStageEvents(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws {
        let confirmations = pipeline.topics.confirmations
        try await pipeline.publish(proposal("forged-unsigned", source: PipelineSource.confirm), to: confirmations)
        let impostor = EventAuthenticator(keys: [PipelineSource.confirm: Array(repeating: 0x66, count: 32)])
        try await pipeline.publish(
            proposal("forged-impostor", source: PipelineSource.confirm), to: confirmations, signedWith: impostor)
        try await pipeline.publish(
            proposal("forged-by-resolve", source: PipelineSource.resolve), to: confirmations,
            signedWith: testStageKeys)
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
        try await deadLetters.expect(
            Array(repeating: "unauthenticated", count: 4) + Array(repeating: "wrong_producer", count: 3))
    }

    /// Everything a compromised app state holds (view keys), used as both signatures of a
    /// deposit, a proposal and a contact: each parked as unauthenticated where it could move
    /// money (the deposit by the payments stage's ledger follower, the proposal by the payments
    /// stage, the contact by resolve). The confirm stage reads the ledger by view signatures, like
    /// the app state: it takes the deposit, and its view is wrong; that moves nothing (the last
    /// payment of the consolidated test).
    static func appStateKeys(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws {
        let stolen = testViewKeys
        func forged(_ event: EventEnvelope, to topic: String) -> KafkaProducerMessage {
            var record = KafkaProducerMessage(topic: topic, event: event, signedWith: stolen)
            if let view = stolen.signature(for: event) { record.append(view: view) }
            return record
        }
        let deposit = LedgerEvent.deposit(id: "view-money", userID: "alice", amount: money("1000000", "CNY"))
        _ = try await pipeline.send(
            forged(deposit.envelope(source: PipelineSource.ledgerOperator, time: Date()), to: pipeline.topics.ledger))
        _ = try await pipeline.send(
            forged(proposal("view-proposal", source: PipelineSource.confirm), to: pipeline.topics.confirmations))
        let contact = ContactRecord.upsertEvent(
            userID: "alice",
            contact: Contact(id: "sunbo", displayName: "孙波", handles: ["mallory@evil.example"]),
            version: pipeline.nextContactVersion(), source: "/contacts/test", time: Date())
        var contactRecord = forged(contact, to: pipeline.topics.contacts)
        contactRecord.key = ContactRecord.key(userID: "alice", contactID: "sunbo")
        contactRecord.partition = KafkaPartitioner.partition(forKey: "alice", partitions: PipelineHarness.partitions)
        _ = try await pipeline.send(contactRecord)
        try await deadLetters.expect(Array(repeating: "unauthenticated", count: 3))
    }

    /// A proposal of 900 CNY from Alice to 孙波 expiring in 2099, as the confirm stage would write
    /// it, under the id and intent id `id`, from `source`.
    static func proposal(_ id: String, source: String) -> EventEnvelope {
        EventEnvelope(
            id: id, source: source, type: IntentConfirmation.type, time: Date(),
            dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c", intentID: id,
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
    }
}

/// Alice (1,000 CNY) and 孙波 and Mallory with accounts; Alice's contact 孙波 has his own handle,
/// and 孙波's contact Alice hers; the four stage workers running with per-stage keys and the
/// voice services' keys `voice`.
/// `first` publishes before the accounts are opened, `seed` more after them, both before the
/// stages start (they read it as their state at start); `settings` are the settings services'
/// keys the resolve worker takes settings from.
func withMoneyPipeline(
    voice: EventAuthenticator = MoneyAttackTests.voice, settings: EventAuthenticator? = nil,
    voiceBinding: VoiceServiceBinding = .optional, paymentsAmounts: AmountPolicy = .default,
    first: (PipelineHarness) async throws -> Void = { _ in }, seed: (PipelineHarness) async throws -> Void = { _ in },
    _ body: (PipelineHarness) async throws -> Void
) async throws {
    try await withPipeline { pipeline in
        try await first(pipeline)
        try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
        try await pipeline.openAccount("sunbo", handle: "sunbo@example.cn")
        try await pipeline.openAccount("mallory", handle: "mallory@evil.example")
        try await pipeline.publishContacts(
            [Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@example.cn"])], user: "alice")
        try await pipeline.publishContacts(
            [Contact(id: "alice", displayName: "Alice", handles: ["+1 555 0100"])], user: "sunbo")
        try await seed(pipeline)
        try await pipeline.startStages(
            voice: voice, bindingKey: MoneyAttackTests.bindingKey, settings: settings, voiceBinding: voiceBinding,
            paymentsAmounts: paymentsAmounts)
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

    /// The user's answer to a confirmation request, dated `time`; returns the final response
    /// unless `wait` is false.
    @discardableResult
    func answer(
        _ intentID: String, _ binding: ConfirmationBinding, _ decision: ConfirmationAnswer.Decision,
        id: String? = nil, at time: Date = Date(), wait: Bool = true
    ) async throws -> IntentResponse {
        let event = EventEnvelope(
            id: id ?? "answer-\(intentID)-\(decision)", source: "/voice/test", type: ConfirmationAnswer.type,
            time: time, dataSchema: ConfirmationAnswer.dataSchema, userID: "alice", conversationID: "c",
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
    /// `paymentsAmounts`: the payments worker's amount rules (the confirm worker's are the default).
    func startStages(
        voice: EventAuthenticator, bindingKey: BindingKey, settings: EventAuthenticator? = nil,
        voiceBinding: VoiceServiceBinding = .optional, paymentsAmounts: AmountPolicy = .default,
        telemetry: Telemetry = .unobserved
    ) async throws {
        let kafka = clientConfiguration(broker)
        let resolveKeys = EventAuthenticator(keys: voice.withTestContacts.allKeys + (settings?.allKeys ?? []))
        var resolve = ResolveWorker.Configuration(
            kafka: kafka, topics: topics, groupID: "\(stageGroups)-resolve", authenticator: resolveKeys,
            keys: testStageKeys, sessionTimeout: .seconds(6), voiceBinding: voiceBinding)
        resolve.telemetry = telemetry
        var confirm = ConfirmWorker.Configuration(
            kafka: kafka, topics: topics, groupID: "\(stageGroups)-confirm",
            stage: ConfirmStage(bindingKey: bindingKey, authenticator: testStageKeys), keys: testStageKeys,
            sessionTimeout: .seconds(6))
        confirm.telemetry = telemetry
        var payments = PaymentsWorker.Configuration(
            kafka: kafka, topics: topics, groupID: "\(stageGroups)-payments",
            stage: PaymentsStage(
                bindingKey: bindingKey, authenticator: voice, stages: testStageKeys, amounts: paymentsAmounts),
            keys: testStageKeys, sessionTimeout: .seconds(6))
        payments.telemetry = telemetry
        payments.voiceServices = VoiceServiceSettings(binding: voiceBinding, keys: settings ?? testSettingsKeys)
        var handle = HandleWorker.Configuration(
            kafka: kafka, topics: topics, groupID: "\(stageGroups)-handle",
            stage: HandleStage(authenticator: testStageKeys), keys: testStageKeys, sessionTimeout: .seconds(6))
        handle.telemetry = telemetry
        try await start([
            ResolveWorker(configuration: resolve, logger: testLogger),
            ConfirmWorker(configuration: confirm, logger: testLogger),
            PaymentsWorker(configuration: payments, logger: testLogger),
            HandleWorker(configuration: handle, logger: testLogger),
        ])
    }
}
