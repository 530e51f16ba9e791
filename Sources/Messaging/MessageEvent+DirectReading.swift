public import IntentEvents
import Intents

extension MessageEvent: DirectlyReadPayload {
    /// Reads the data as strict decoding of the synthesized `Codable` conformance does
    /// (required `id`, `kind`, `userID`, `intentID`, `messageIDs` and `at`, the rest
    /// optional; unknown fields, `null` and a repeated key refused, leaving the error to the
    /// `Codable` path). Every handle worker reads every message event of its partitions
    /// back (its history), and the simulation after every step.
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> MessageEvent {
        var id: String?
        var kind: Kind?
        var userID: String?
        var intentID: String?
        var messageIDs: [String]?
        var at: Timestamp?
        var event = MessageEvent(
            id: "", kind: .delivered, userID: "", intentID: "", messageIDs: [], at: Timestamp(milliseconds: 0))
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "id": try readOnce(&id, &value)
            case "kind": try setOnce(&kind, readRaw(Kind.self, &value))
            case "userID": try readOnce(&userID, &value)
            case "intentID": try readOnce(&intentID, &value)
            case "messageIDs": try setOnce(&messageIDs, readStrings(&value))
            case "conversation": try readOnce(&event.conversation, &value)
            case "recipients": try setOnce(&event.recipients, Person.readAll(from: &value))
            case "content": try readOnce(&event.content, &value)
            case "serviceName": try readOnce(&event.serviceName, &value)
            case "at": try setOnce(&at, Timestamp.read(from: &value))
            case "dueAt": try setOnce(&event.dueAt, Timestamp.read(from: &value))
            case "attribute": try setOnce(&event.attribute, readRaw(MessageAttribute.self, &value))
            case "locale": try readOnce(&event.locale, &value)
            default: throw JSONRefusal()
            }
        }
        guard let id, let kind, let userID, let intentID, let messageIDs, let at else { throw JSONRefusal() }
        event.id = id
        event.kind = kind
        event.userID = userID
        event.intentID = intentID
        event.messageIDs = messageIDs
        event.at = at
        return event
    }
}
