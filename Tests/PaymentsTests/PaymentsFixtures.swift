import Foundation
import IntentEvents
import Intents
import Payments

let t0 = Date(timeIntervalSince1970: 1_795_000_000)
let bindingKey = BindingKey(Array(repeating: 7, count: 32))
let voiceKey = Array(repeating: UInt8(42), count: 32)
let authenticator = EventAuthenticator(keys: ["/voice/test": voiceKey])
/// One key per stage (and the ledger operator), as the workers hold them.
let stageKeys = EventAuthenticator(
    keys: PipelineSource.all.enumerated().map {
        SigningKey(source: $1, bytes: Array(repeating: UInt8($0 + 1), count: 32))
    })

/// The signature a record of this event carries: a stage's key for the pipeline's sources, else the voice service's.
func signature(_ event: EventEnvelope) -> EventSignature? {
    PipelineSource.isInternal(event.source) ? stageKeys.signature(for: event) : authenticator.signature(for: event)
}

func cny(_ text: String) -> CurrencyAmount { CurrencyAmount(amount: DecimalAmount(text)!, currency: "CNY") }

/// Who owns each handle of ``fundedLedger(idempotencyHorizon:)``'s accounts (normalized), and
/// Mallory's of the audit's histories, as a binding names the counterparty's account owner.
let fixtureAccountOwners = [
    Person.normalizedHandle("+1 555 0100"): "alice", Person.normalizedHandle("bob@example.com"): "bob",
    Person.normalizedHandle("carol@example.com"): "carol", Person.normalizedHandle("mallory@evil.example"): "mallory",
]

/// Alice and Bob have accounts (Alice with 1,000 CNY); Carol's are unverified; Dave has none.
func fundedLedger(idempotencyHorizon: Duration? = nil) throws -> Ledger {
    var ledger = Ledger(idempotencyHorizon: idempotencyHorizon)
    for (user, handle, verified) in [
        ("alice", "+1 555 0100", true), ("bob", "bob@example.com", true), ("carol", "carol@example.com", false),
    ] {
        try ledger.apply(
            LedgerEvent(
                id: "open-\(user)", kind: .accountOpened, userID: user, handles: [handle], verified: verified,
                accountVersion: 1))
    }
    try ledger.apply(LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: cny("1000")))
    return ledger
}

let bob = Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob", displayName: "Bob")

func pay(_ amount: String, to person: Person = bob, requestID: String? = nil) -> Intent {
    .sendPayment(SendPaymentIntent(payee: person, currencyAmount: cny(amount), paymentRequestID: requestID))
}

/// What a proposal made at t0 (120 s to answer) binds the user's answer to.
func termsFor(_ intent: Intent, user: String = "alice", intentID: String, time: Date = t0) -> BindingTerms {
    let (person, amount, note): (Person?, CurrencyAmount?, String?) =
        switch intent {
        case .sendPayment(let payment): (payment.payee, payment.currencyAmount, payment.note)
        case .requestPayment(let request): (request.payer, request.currencyAmount, request.note)
        default: (nil, nil, nil)
        }
    return BindingTerms(
        kind: intent.kind, intentID: intentID, userID: user, counterpartyContactID: person?.contactID,
        counterpartyAccount: person?.handle, money: Money(amount!), note: note,
        expiresAt: Timestamp(time.addingTimeInterval(120)),
        counterpartyUserID: person?.handle.flatMap { fixtureAccountOwners[Person.normalizedHandle($0)] })
}

/// The binding the confirm stage gives a proposal made at t0 (120 s to answer).
func bindingFor(_ intent: Intent, user: String = "alice", intentID: String, time: Date = t0) -> ConfirmationBinding {
    bindingKey.binding(termsFor(intent, user: user, intentID: intentID, time: time))
}

/// A confirm-stage result as the payments stage receives it, with its binding.
func confirmedEvent(_ intent: Intent, user: String = "alice", intentID: String, time: Date = t0) -> EventEnvelope {
    EventEnvelope(
        id: "confirmed-\(intentID)", source: "/workers/confirm", type: IntentConfirmation.type, time: time,
        dataSchema: IntentConfirmation.dataSchema, userID: user, conversationID: "c", intentID: intentID,
        payload: IntentConfirmation(
            turn: 1, intent: intent, code: .ready, proposedResponse: "OK?",
            binding: bindingFor(intent, user: user, intentID: intentID, time: time)))
}

/// The user's answer, signed by the voice service.
func answerEvent(
    _ decision: ConfirmationAnswer.Decision, binding: ConfirmationBinding, user: String = "alice", intentID: String,
    id: String? = nil, time: Date = t0
) -> (EventEnvelope, EventSignature?) {
    let event = EventEnvelope(
        id: id ?? "answer-\(intentID)-\(decision)", source: "/voice/test", type: ConfirmationAnswer.type, time: time,
        dataSchema: ConfirmationAnswer.dataSchema, userID: user, conversationID: "c", intentID: intentID,
        payload: ConfirmationAnswer(decision: decision, binding: binding))
    return (event, authenticator.signature(for: event))
}

/// Delivers a result's effects (ledger events for other users, sent on the confirmations topic)
/// back through the stage, as those users' members would record them, with one ledger for
/// everyone; returns the result with what recording them published appended.
func withEffectsDelivered(_ result: StageResult, _ stage: PaymentsStage, _ ledger: inout Ledger, now: Date = t0)
    -> StageResult
{
    var combined = result
    for effect in result.effects {
        let recorded = stage.process(
            key: effect.userID, value: effect.encoded(), signature: signature(effect), ledger: &ledger, now: now)
        combined.events += withEffectsDelivered(recorded, stage, &ledger, now: now).events
    }
    return combined
}

extension StageResult {
    func events(to destination: Destination) -> [EventEnvelope] {
        events.filter { $0.destination == destination }.map(\.event)
    }

    /// Ledger events for other users' members (``PaymentsStage/effectKinds``).
    var effects: [EventEnvelope] { events(to: .effects).filter { $0.type == LedgerEvent.type } }

    var effectKinds: [LedgerEvent.Kind] { effects.compactMap { try? $0.decodeData(as: LedgerEvent.self).kind } }

    var response: IntentResponse? {
        events(to: .responses).first.flatMap { try? $0.decodeData(as: IntentResponse.self) }
    }

    /// The confirm stage's refusal of a payment (sent to the payments stage, not a response).
    var refusal: IntentConfirmation? {
        events(to: .confirmations).first.flatMap { try? $0.decodeData(as: IntentConfirmation.self) }
            .flatMap { $0.code == .ready ? nil : $0 }
    }

    var confirmationRequest: ConfirmationRequest? {
        events(to: .prompts).first.flatMap { try? $0.decodeData(as: ConfirmationRequest.self) }
    }

    var ledgerKinds: [LedgerEvent.Kind] {
        events(to: .ledger).compactMap { try? $0.decodeData(as: LedgerEvent.self).kind }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
