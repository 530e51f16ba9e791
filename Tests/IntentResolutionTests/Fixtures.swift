import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Intents

let fixedNow = Date(timeIntervalSince1970: 1_795_000_000)

/// One user's address book: the names in three scripts, and two Brandons.
let sampleContacts: [Contact] = [
    Contact(id: "xiaoming", displayName: "小明", handles: ["+86 138 0000 0001"], interactionCount: 12),
    Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙", interactionCount: 3),
    Contact(id: "yulia", displayName: "Юлия Щукина", givenName: "Юлия", familyName: "Щукина"),
    Contact(id: "dmitry", displayName: "Дмитрий Соколов", givenName: "Дмитрий", familyName: "Соколов"),
    Contact(
        id: "brandon-lee", displayName: "Brandon Lee", interactionCount: 2,
        lastInteraction: fixedNow.addingTimeInterval(-90 * 86_400)),
    Contact(
        id: "brandon-smith", displayName: "Brandon Smith", interactionCount: 40,
        lastInteraction: fixedNow.addingTimeInterval(-2 * 86_400)),
    Contact(id: "robert", displayName: "Robert Johnson", givenName: "Robert", familyName: "Johnson"),
    Contact(id: "mom", displayName: "Margaret Chen", relation: "mother", handles: ["margaret@example.com"]),
]

let sampleBook = ContactBook(
    contacts: sampleContacts, resolver: ContactResolver(contacts: sampleContacts, now: fixedNow))

func amount(_ text: String, _ currency: String) -> CurrencyAmount {
    CurrencyAmount(amount: DecimalAmount(text)!, currency: currency)
}

/// The parameter results by parameter path.
func outcomes(_ report: IntentResolutionReport) -> [String: ParameterOutcome] {
    Dictionary(uniqueKeysWithValues: report.parameters.map { ($0.parameter, $0.outcome) })
}

func parameter(_ report: IntentResolutionReport, _ name: String) -> ParameterResolution? {
    report.parameters.first { $0.parameter == name }
}

/// An `intent.requested.v1` record as a voice service publishes it.
func requestEvent(
    user: String = "u1", intentID: String = "intent-1", turn: Int, intent: Intent, id: String? = nil
) -> EventEnvelope {
    EventEnvelope(
        id: id ?? "req-\(intentID)-\(turn)", source: "/voice/test", type: IntentRequested.type, time: fixedNow,
        dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "conv-1", intentID: intentID,
        payload: IntentRequested(turn: turn, intent: intent))
}

/// Ends a test when an outcome has the wrong shape to check further.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
