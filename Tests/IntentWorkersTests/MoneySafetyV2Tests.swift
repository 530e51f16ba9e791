import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Testing

/// Issue 28's second round of attacks against the running workers on a real broker, each
/// from a party that is legitimate on its own: a second voice service with its own key, a
/// payer paying one request twice, an answer to an intent that already ended. Each is
/// refused with its reason, moves no money, and leaves the audit clean; no event id is ever
/// published twice with different contents.
@Suite("Money safety v2: every party bound, against a local broker", .heavyTimeLimit(minutes: 5))
struct MoneySafetyV2Tests {
    /// Two voice services, each with a valid key of its own.
    static let voices = EventAuthenticator(keys: [
        "/voice/test": Array(repeating: UInt8(0x33), count: 32),
        "/voice/other": Array(repeating: UInt8(0x34), count: 32),
    ])

    /// This suite's attacks that share one set-up (two voice services, the binding optional)
    /// through one broker and one pipeline (one set of group joins), one step each, then the
    /// balances, the final responses and a clean audit; the binding required has its own
    /// pipeline (`userBoundToVoiceService`).
    @Test(
        "a foreign voice service, rules the confirm stage let through, a pre-written ledger id, a request paid twice, answers after the end"
    )
    func attacksThroughOnePipeline() async throws {
        // The payments worker's amount rules are stricter than the confirm worker's (at most
        // 500 CNY against 50,000), as during a rollout of new limits (`amountRulesCheckedAgain`).
        let strict = try AmountPolicy.parse("CNY:0.01:500")
        try await withMoneyPipeline(voice: Self.voices, paymentsAmounts: strict) { pipeline in
            var letters = DeadLetterTally(pipeline)
            try await Self.foreignVoiceService(pipeline, &letters)
            try await Self.amountRulesCheckedAgain(pipeline, &letters)
            try await Self.prewrittenLedgerID(pipeline)
            try await Self.requestPaidOnce(pipeline, &letters)
            try await Self.requestHeldThenDeclinedThenCopied(pipeline, &letters)
            try await Self.openRequestsBounded(pipeline)
            let posing = try await Self.answerAfterTheEnd(pipeline, &letters)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            #expect(pipeline.outputs(for: "turns").allSatisfy { $0.type != IntentResolutionReport.resolvedType })
            for intent in ["too-much", "declined"] {
                let finals = try await pipeline.finalResponses(for: intent)
                #expect(finals.count == 1, "\(intent): \(finals.map(\.id))")
            }
            let ledger = try await pipeline.rebuildLedger()
            // 100 paid by the asking service's answer, 30 for each request (once); no credit for the
            // post refused for its pre-written id, whose 1 CNY deposit stays Alice's.
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("160", "CNY")))
            #expect(ledger.availableBalance(of: "alice", "CNY") == Money(money("841", "CNY")))
            #expect(ledger.transfer(forIntent: "pay-second", of: "alice") == nil, "nothing held for the second")
            // The copy of 孙波's answer that created a request is the test's own (attack 52), and
            // so is the answer under a refusal's id (attack 58).
            try await pipeline.expectCleanRun(resent: ["answer-ask-held-confirmed-/voice/test", posing])
        }
    }

    @Test(
        "a user bound to a voice service in the settings: no other voice service can start an intent of theirs; a user bound to none makes no payment"
    )
    func userBoundToVoiceService() async throws {
        try await withMoneyPipeline(voice: Self.voices, settings: testSettingsKeys, voiceBinding: .required) {
            pipeline in
            try await pipeline.enroll("alice", with: ["/voice/test"])
        } _: { pipeline in
            let pay = Intent.sendPayment(
                SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("100", "CNY")))
            // The other service starts a payment of Alice's (to answer it itself): refused at resolve.
            try await pipeline.request("rogue", pay, from: "/voice/other")
            let letters = try await pipeline.deadLetters(count: 1)
            #expect(letters.map { $0.header(DeadLetter.reasonHeader) } == ["wrong_producer"])
            #expect(letters.first?.header(DeadLetter.fieldHeader) == "$.source")
            // Her own service still can; 孙波, who bound no service, is served by either.
            try await pipeline.request("own", pay, from: "/voice/test")
            _ = try await pipeline.event(for: "own", type: ConfirmationRequest.type)
            let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "Alice")], content: "hi"))
            try await pipeline.request("sunbo-message", message, user: "sunbo", from: "/voice/other")
            let answered = try await pipeline.event(for: "sunbo-message", type: IntentResponse.type)
            #expect(try answered.decodeData(as: IntentResponse.self).code == .success)
            #expect(pipeline.outputs(for: "rogue").isEmpty, "nothing derived from the refused request")
            // 孙波 bound no service: no voice service can start a payment of his (to confirm it itself).
            let sunboPays = Intent.sendPayment(
                SendPaymentIntent(payee: Person(spoken: "Alice"), currencyAmount: money("10", "CNY")))
            try await pipeline.request("unbound-pay", sunboPays, user: "sunbo", from: "/voice/other")
            let unbound = try await pipeline.deadLetters(count: 2)
            #expect(unbound.map { $0.header(DeadLetter.reasonHeader) } == ["wrong_producer", "wrong_producer"])
            // No prompt, no proposal, no hold: only the final response saying why, for the service that asked.
            let refused = try await pipeline.event(for: "unbound-pay", type: IntentResponse.type)
            #expect(try refused.decodeData(as: IntentResponse.self).reason == "wrong_producer")
            #expect(
                pipeline.outputs(for: "unbound-pay").map(\.type) == [IntentResponse.type], "no prompt, proposal or hold"
            )
        }
    }

    @Test(
        "a payment request is declined only by a voice service the payer is bound to: another's decline is parked and changes nothing"
    )
    func declineFromTheBoundService() async throws {
        try await withMoneyPipeline(voice: Self.voices, settings: testSettingsKeys, voiceBinding: .required) {
            pipeline in
            try await pipeline.enroll("alice", with: ["/voice/test"])
            try await pipeline.enroll("sunbo", with: ["/voice/test"])
        } _: { pipeline in
            let requestID = try await pipeline.sunboAsksAliceFor30()
            // The other voice service (its key is genuine) declines it for Alice: parked, at payments.
            try await pipeline.decline(requestID, from: "/voice/other")
            let letters = try await pipeline.deadLetters(count: 1)
            #expect(letters.map { $0.header(DeadLetter.reasonHeader) } == ["wrong_producer"])
            #expect(letters.first?.header(DeadLetter.fieldHeader) == "$.source")
            // Her own service declines it: both sides record the decline, once.
            try await pipeline.decline(requestID, from: "/voice/test")
            try await pipeline.waitForLedgerEvent {
                $0.kind == .requestDeclined && $0.requestID == requestID && $0.userID == "sunbo"
            }
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let declines = try await TopicReader.events(
                of: pipeline.topics.ledger, configuration: clientConfiguration(pipeline.broker), logger: testLogger
            ).events.compactMap { try? $0.decodeData(as: LedgerEvent.self) }.filter {
                $0.kind == .requestDeclined && $0.requestID == requestID
            }
            #expect(Set(declines.map(\.userID)) == ["alice", "sunbo"], "\(declines.map(\.id))")
            #expect(Set(declines.map(\.decidedBy)) == ["decline-\(requestID)-/voice/test"])
        }
    }

    /// Another voice service cannot answer, decline or continue an intent it did not ask for:
    /// its answers and its turn are dead-lettered, and the asking service's answer pays, once.
    static func foreignVoiceService(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws {
        let (asked, binding) = try await pipeline.askToPay("pay", "100")
        #expect(RequestSource.of(asked) == "/voice/test", "the question names the service that asked")

        // The other service read the question from the shared prompts topic and answers it,
        // with the right binding: first yes, then no. Neither counts.
        try await pipeline.answer("pay", binding, .confirmed, from: "/voice/other")
        try await pipeline.answer("pay", binding, .declined, from: "/voice/other")
        // And it continues an intent the first service started (turn 2 of a question).
        let incomplete = Intent.sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波")))
        try await pipeline.request("turns", incomplete, from: "/voice/test")
        _ = try await pipeline.event(for: "turns", type: IntentResolutionReport.promptType)
        let pay = Intent.sendPayment(
            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("100", "CNY")))
        try await pipeline.request("turns", pay, turn: 2, from: "/voice/other")
        // The suite's first step: these are all the dead letters so far.
        let letters = try await deadLetters.expect(Array(repeating: "wrong_producer", count: 3))
        #expect(letters.allSatisfy { $0.header(DeadLetter.fieldHeader) == "$.source" })

        // The hold is untouched: the asking service's own answer still pays, once.
        let paid = try await pipeline.answer("pay", binding, .confirmed, from: "/voice/test", wait: true)
        #expect(paid?.code == .success)
    }

    /// A proposal the confirm stage made under its own amount rules (50,000 CNY at most) and the
    /// payments worker's forbid (500): the payments stage checks the rules again before it holds
    /// anything, closes the proposal with the rule's code, and the user's "yes" finds nothing
    /// pending. The same check stops a holder of the confirm stage's key (MoneySafetyTests).
    static func amountRulesCheckedAgain(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally)
        async throws
    {
        let (_, binding) = try await pipeline.askToPay("over-the-rules", "600")
        let refused = try await pipeline.event(for: "over-the-rules", type: IntentResponse.type)
        #expect(try refused.decodeData(as: IntentResponse.self).code == .failurePaymentsAmountAboveMaximum)
        try await pipeline.answer("over-the-rules", binding, .confirmed, from: "/voice/test")
        try await deadLetters.expect(["not_pending"])
        let ledger = try await pipeline.rebuildLedger()
        #expect(ledger.transfer(forIntent: "over-the-rules", of: "alice") == nil, "nothing held")
        #expect(ledger.closedProposal(forIntent: "over-the-rules", of: "alice") != nil)
    }

    /// A deposit written ahead under the id of a coming post: the post is refused, no credit leaves.
    static func prewrittenLedgerID(_ pipeline: PipelineHarness) async throws {
        // The ids a payment's events will have are predictable from the user and the intent
        // id: with the ledger operator's key, 1 CNY to Alice under the id the post will have,
        // written before she even asks.
        let transferID = Ledger.transferID(userID: "alice", intentID: "ahead")
        for record in KafkaProducerMessage.ledgerOperator(
            [
                LedgerEvent.deposit(
                    id: EventID.derived("ledger", "post", transferID), userID: "alice", amount: money("1", "CNY"))
            ],
            topics: pipeline.topics, signedWith: testStageKeys)
        {
            _ = try await pipeline.send(record)
        }
        let (_, binding) = try await pipeline.askToPay("ahead", "100")
        let answered = try await pipeline.answer("ahead", binding, .confirmed, from: "/voice/test", wait: true)
        #expect(answered?.code == .failure)
        #expect(answered?.reason?.contains("idReused") == true, "\(String(describing: answered?.reason))")
    }

    /// One payment request, two payments of it confirmed together: one posts, the other has its own code.
    static func requestPaidOnce(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws {
        let requestID = try await pipeline.sunboAsksAliceFor30()

        // Alice pays it twice, one intent right after the other, and confirms every question
        // she is asked at once.
        let (firstID, first, payIt) = try await pipeline.alicePays(requestID, intentPrefix: "pay")
        try await pipeline.request("pay-second", payIt, from: "/voice/test")
        // The second is refused at confirm (the request is reserved) or, if confirm had not yet
        // seen the first hold, asked and refused at the payments stage's hold.
        let second = try await pipeline.event(
            for: "pay-second", anyOf: [ConfirmationRequest.type, IntentResponse.type])
        try await pipeline.answer(
            firstID, try first.decodeData(as: ConfirmationRequest.self).binding, .confirmed, from: "/voice/test")
        if second.type == ConfirmationRequest.type {
            try await pipeline.answer(
                "pay-second", try second.decodeData(as: ConfirmationRequest.self).binding, .confirmed,
                from: "/voice/test")
            // The payments stage closed its proposal on taking it: nothing is pending.
            try await deadLetters.expect(["not_pending"])
        }
        let one = try await pipeline.event(for: firstID, type: IntentResponse.type).decodeData(
            as: IntentResponse.self)
        let two = try await pipeline.event(for: "pay-second", type: IntentResponse.type).decodeData(
            as: IntentResponse.self)
        #expect(one.code == .success)
        #expect(two.code == .failurePaymentRequestNotPayable)
    }

    /// SECURITY.md, attacks 52 and 53: a request that a payment of it holds is not declined
    /// (before, the decline was recorded on both sides and the payment still posted: paid, and
    /// "declined"); and the answer that created it, re-sent with a fresh time once it is paid,
    /// is answered with the same bytes as first and reopens nothing (before, its response and
    /// its effect to the payer were dated by the copy: one event id with two contents, which
    /// ``PipelineHarness/expectCleanRun(resent:sourceLocation:)`` checks at the end).
    static func requestHeldThenDeclinedThenCopied(
        _ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally
    ) async throws {
        let requestID = try await pipeline.sunboAsksAliceFor30(intentID: "ask-held")
        let (intentID, question, _) = try await pipeline.alicePays(requestID, intentPrefix: "pay-held")
        try await pipeline.decline(requestID, from: "/voice/test")
        try await deadLetters.expect(["not_pending"])
        let paid = try await pipeline.answer(
            intentID, try question.decodeData(as: ConfirmationRequest.self).binding, .confirmed, from: "/voice/test",
            wait: true)
        #expect(paid?.code == .success)
        try await pipeline.waitForLedgerEvent {
            $0.kind == .requestPaid && $0.requestID == requestID && $0.userID == "sunbo"
        }
        // 孙波's answer that created the request, the same id re-sent with a fresh time.
        let creation = try await pipeline.event(for: "ask-held", type: ConfirmationRequest.type)
        try await pipeline.answer(
            "ask-held", try creation.decodeData(as: ConfirmationRequest.self).binding, .confirmed, user: "sunbo",
            from: "/voice/test")
        // Answered again (a redelivery is): two records of the final response, the same bytes.
        let deadline = ContinuousClock.now + .seconds(60)
        var finals = try await pipeline.finalResponses(for: "ask-held")
        while finals.count < 2, ContinuousClock.now < deadline {
            finals = try await pipeline.finalResponses(for: "ask-held")
        }
        #expect(finals.count == 2)
        #expect(Set(finals.map { $0.encoded() }).count == 1, "the copy is answered with the first answer's bytes")
        let ledger = try await pipeline.rebuildLedger()
        #expect(ledger.requests[requestID]?.status == .paid)
    }

    /// SECURITY.md, attack 54: a pending request never expires and only its payer ends it, so
    /// one user's open requests to one payer are bounded; one more is refused with its reason.
    static func openRequestsBounded(_ pipeline: PipelineHarness) async throws {
        let ask = Intent.requestPayment(
            RequestPaymentIntent(payer: Person(spoken: "Alice"), currencyAmount: money("1", "CNY")))
        for index in 0...Ledger.maximumOpenRequestsToOnePayer {
            try await pipeline.request("flood-\(index)", ask, user: "sunbo", from: "/voice/test")
        }
        // In order on 孙波's partition at every stage: the last comes after all the others.
        let last = try await pipeline.event(
            for: "flood-\(Ledger.maximumOpenRequestsToOnePayer)", type: IntentResponse.type)
        #expect(try last.decodeData(as: IntentResponse.self).reason == "tooManyOpenRequests")
        _ = try await pipeline.event(for: "flood-0", type: ConfirmationRequest.type)
    }

    /// An answer to an intent that already ended (at confirm, or at payments under another answer
    /// id) gets no second final response (checked at the end of the consolidated test).
    /// Returns the id the test reused (attack 58).
    static func answerAfterTheEnd(_ pipeline: PipelineHarness, _ deadLetters: inout DeadLetterTally) async throws
        -> String
    {
        // Ended at confirm's refusal, recorded by the payments stage: more than Alice has.
        let tooMuch = Intent.sendPayment(
            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("5000", "CNY")))
        try await pipeline.request("too-much", tooMuch, from: "/voice/test")
        let refused = try await pipeline.event(for: "too-much", type: IntentResponse.type)
        #expect(try refused.decodeData(as: IntentResponse.self).code == .failureInsufficientFunds)
        // Ended at payments: declined, then answered again with yes under another id.
        let pay = Intent.sendPayment(
            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("10", "CNY")))
        try await pipeline.request("declined", pay, from: "/voice/test")
        let binding = try await pipeline.event(for: "declined", type: ConfirmationRequest.type)
            .decodeData(as: ConfirmationRequest.self).binding
        let no = try await pipeline.answer("declined", binding, .declined, from: "/voice/test", wait: true)
        #expect(no?.reason == "declinedByUser")

        let made = ConfirmationBinding(digest: String(repeating: "ab", count: 32), expiresAt: binding.expiresAt)
        try await pipeline.answer("too-much", made, .confirmed, from: "/voice/test")
        try await deadLetters.expect(["not_pending"])
        // Attack 58: an answer under the id of the refusal that closed it (its response's cause)
        // is no redelivery of anything: not answered again.
        let closing = try #require(refused.causationID)
        try await pipeline.answer("too-much", made, .confirmed, from: "/voice/test", id: closing)
        try await deadLetters.expect(["not_pending"])
        try await pipeline.answer("declined", binding, .confirmed, from: "/voice/test", id: "changed-my-mind")
        // Something answered after both, on Alice's partition: once it is answered, the
        // payments worker has passed the answers above.
        try await pipeline.request("probe", pay, from: "/voice/test")
        let probe = try await pipeline.event(for: "probe", type: ConfirmationRequest.type)
        _ = try await pipeline.answer(
            "probe", try probe.decodeData(as: ConfirmationRequest.self).binding, .declined, from: "/voice/test",
            wait: true)
        return closing
    }

}

/// The money pipeline (``withMoneyPipeline(voice:_:)``) taking two voice services' keys.
func withTwoVoicePipeline(_ body: (PipelineHarness) async throws -> Void) async throws {
    try await withMoneyPipeline(voice: MoneySafetyV2Tests.voices, body)
}

extension PipelineHarness {
    /// A request of `user`'s from a voice service, signed with its key.
    func request(
        _ intentID: String, _ intent: Intent, user: String = "alice", turn: Int = 1, from source: String
    ) async throws {
        var event = requestEvent(intentID, user: user, turn: turn, intent)
        event.source = source
        try await publish(event, to: topics.requested, signedWith: MoneySafetyV2Tests.voices)
    }

    /// Alice asks (through `/voice/test`) to pay 孙波 `amount` CNY; returns the confirmation
    /// request once the hold is placed, and the binding the answer must echo.
    func askToPay(_ intentID: String, _ amount: String) async throws -> (EventEnvelope, ConfirmationBinding) {
        let pay = Intent.sendPayment(
            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money(amount, "CNY")))
        try await request(intentID, pay, from: "/voice/test")
        let asked = try await event(for: intentID, type: ConfirmationRequest.type)
        return (asked, try asked.decodeData(as: ConfirmationRequest.self).binding)
    }

    /// A user's answer from a voice service; with `wait`, the intent's final response.
    @discardableResult
    func answer(
        _ intentID: String, _ binding: ConfirmationBinding, _ decision: ConfirmationAnswer.Decision,
        user: String = "alice", from source: String, id: String? = nil, wait: Bool = false
    ) async throws -> IntentResponse? {
        let event = EventEnvelope(
            id: id ?? "answer-\(intentID)-\(decision)-\(source)", source: source, type: ConfirmationAnswer.type,
            time: Date(), dataSchema: ConfirmationAnswer.dataSchema, userID: user, conversationID: "c",
            intentID: intentID, payload: ConfirmationAnswer(decision: decision, binding: binding))
        try await publish(event, to: topics.confirmations, signedWith: MoneySafetyV2Tests.voices)
        guard wait else { return nil }
        return try await self.event(for: intentID, type: IntentResponse.type).decodeData(as: IntentResponse.self)
    }

    /// 孙波 asks Alice for 30 CNY through `/voice/test` and confirms the request; returns its id
    /// once it is pending on Alice's side (her member has recorded the request's effect).
    func sunboAsksAliceFor30(intentID: String = "ask") async throws -> String {
        let ask = Intent.requestPayment(
            RequestPaymentIntent(payer: Person(spoken: "Alice"), currencyAmount: money("30", "CNY")))
        try await request(intentID, ask, user: "sunbo", from: "/voice/test")
        let question = try await event(for: intentID, type: ConfirmationRequest.type)
        let created = try await answer(
            intentID, try question.decodeData(as: ConfirmationRequest.self).binding, .confirmed, user: "sunbo",
            from: "/voice/test", wait: true)
        let requestID = try #require(created?.paymentRequestID)
        try await waitForLedgerEvent {
            $0.kind == .requestReceived && $0.requestID == requestID && $0.userID == "alice"
        }
        return requestID
    }

    /// Alice asks to pay 孙波's request `requestID` (30 CNY) until she is asked to confirm:
    /// the confirm stage reads her ledger as it follows it, so until it has read the request's
    /// arrival it refuses a payment of it (as the user would hear it), and she asks again, as a
    /// user would. Returns the intent asked about, its question and the intent itself.
    func alicePays(_ requestID: String, intentPrefix: String) async throws -> (
        intentID: String, question: EventEnvelope, intent: Intent
    ) {
        let payIt = Intent.sendPayment(
            SendPaymentIntent(
                payee: Person(spoken: "孙波"), currencyAmount: money("30", "CNY"), paymentRequestID: requestID))
        for attempt in 1...30 {
            let intentID = "\(intentPrefix)-\(attempt)"
            try await request(intentID, payIt, from: "/voice/test")
            let outcome = try await event(for: intentID, anyOf: [ConfirmationRequest.type, IntentResponse.type])
            if outcome.type == ConfirmationRequest.type { return (intentID, outcome, payIt) }
            #expect(try outcome.decodeData(as: IntentResponse.self).reason == "paymentRequestNotPending")
        }
        throw Failure("confirm never saw the request \(requestID) pending")
    }

    /// Alice's decline of a payment request, from a voice service.
    func decline(_ requestID: String, from source: String) async throws {
        let event = EventEnvelope(
            id: "decline-\(requestID)-\(source)", source: source, type: PaymentRequestDecline.type, time: Date(),
            dataSchema: PaymentRequestDecline.dataSchema, userID: "alice", conversationID: "c",
            payload: PaymentRequestDecline(paymentRequestID: requestID))
        try await publish(event, to: topics.confirmations, signedWith: MoneySafetyV2Tests.voices)
    }

    /// Waits, while the workers run, until the ledger topic holds an event like this
    /// (each check is a full pass over the topic: there is nothing else to wait on).
    func waitForLedgerEvent(timeout: Duration = .seconds(60), _ matches: (LedgerEvent) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (events, _) = try await TopicReader.events(
                of: topics.ledger, configuration: clientConfiguration(broker), logger: testLogger)
            if events.contains(where: { (try? $0.decodeData(as: LedgerEvent.self)).map(matches) ?? false }) { return }
        }
        throw Failure("no such ledger event after \(timeout)")
    }

    /// The audit of the topics finds nothing, and no event id stands for two different events
    /// but those the test itself sent twice (`resent`: an attacker's copies).
    func expectCleanRun(resent: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await audit().findings == [], sourceLocation: sourceLocation)
        try await expectNoEventIDReused(resent: resent, sourceLocation: sourceLocation)
    }

    /// Reads every topic of the run from its start: no event id stands for two different events
    /// but those in `resent`.
    func expectNoEventIDReused(resent: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        var contents: [String: Set<[UInt8]>] = [:]
        for topic in topics.all where topic != topics.ledgerSnapshots {
            let (events, _) = try await TopicReader.events(
                of: topic, configuration: clientConfiguration(broker), logger: testLogger)
            for event in events { contents[event.id, default: []].insert(event.encoded()) }
        }
        let reused = contents.filter { $0.value.count > 1 && !resent.contains($0.key) }.keys.sorted()
        #expect(reused == [], "event ids published with different contents", sourceLocation: sourceLocation)
        #expect(contents.count > 10, "the scan read the run's events", sourceLocation: sourceLocation)
    }
}
