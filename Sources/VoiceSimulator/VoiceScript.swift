public import Foundation
public import IntentEvents
public import Intents

/// A scripted conversation for the simulated voice service: what each user
/// says (as the structured intent the NLU would produce) and how they answer
/// the assistant's questions, in order. JSON:
///
///     {"steps": [
///       {"user": "alice", "say": "Send 100 yuan to 孙波",
///        "intent": {"kind": "sendPayment", "payee": {"spoken": "孙波"},
///                   "currencyAmount": {"amount": "100", "currency": "CNY"}},
///        "answers": [{"pick": 1}, {"confirm": true}],
///        "expect": "success"}]}
public struct VoiceScript: Codable, Sendable {
    public var steps: [Step]

    public struct Step: Codable, Sendable {
        public var user: String
        /// What the user said, for the transcript.
        public var say: String
        /// The language the user said it in (BCP 47, e.g. `zh-Hans-CN`): sent as the request's
        /// and the answers' `locale`, so the assistant answers in it. Nil: none sent (English).
        public var locale: String?
        /// The intent as an object with `kind` (schemas/intent/common.v1.json).
        public var intent: JSONValue
        /// Answers to the prompts and confirmation requests of this intent, in order.
        public var answers: [Answer]?
        /// The final response code the script expects; nil accepts any.
        public var expect: ResponseCode?
        /// The final response's reason the script expects, e.g. `declinedByUser`.
        public var expectReason: String?
    }

    public struct Answer: Codable, Sendable {
        /// Pick candidate N (from 1) of the first parameter offering candidates.
        public var pick: Int?
        /// Fields to set in the intent (e.g. `{"currencyAmount": {...}}`) when a value is needed.
        public var value: [String: JSONValue]?
        /// Confirm (true) or decline (false) a payment.
        public var confirm: Bool?
        /// Answer a confirmation with a binding for another amount (a forged or stale confirmation).
        public var tamper: Bool?
    }

    public static func load(_ data: Data) throws -> VoiceScript {
        try JSONDecoder().decode(VoiceScript.self, from: data)
    }
}
