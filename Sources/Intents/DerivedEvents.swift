public import Foundation
public import IntentEvents

extension EventEnvelope {
    /// An event caused by this one, with an id derived from (type, user, intent,
    /// cause), so processing the cause again yields the same event. It carries
    /// the cause's extension attributes (a trace context, a producer's own).
    /// Inlinable so the payload's concrete type reaches the envelope's initializer, which
    /// then knows at compile time how the payload writes itself.
    @inlinable
    public func derived(
        type: String, dataSchema: String, source: String, time: Date, payload: some Encodable,
        discriminator: String = ""
    ) -> EventEnvelope {
        var event = EventEnvelope(
            id: EventID.derived(type, userID, intentID ?? "", id, discriminator), source: source, type: type,
            time: time,
            subject: intentID, dataSchema: dataSchema, userID: userID, conversationID: conversationID,
            intentID: intentID, causationID: id, payload: payload)
        event.extensions = extensions
        return event
    }

    /// The final response of an intent. Its id depends only on the user and
    /// the intent, so an intent has one final response whatever path and
    /// however many redeliveries led to it.
    public func response(_ response: IntentResponse, source: String, time: Date, intentID: String) -> EventEnvelope {
        var event = EventEnvelope(
            id: EventID.derived(
                IntentResponse.type, userID, intentID, response.code == .inProgress ? "progress" : "final"),
            source: source, type: IntentResponse.type, time: time, subject: intentID,
            dataSchema: IntentResponse.dataSchema, userID: userID, conversationID: conversationID,
            intentID: intentID, causationID: id, payload: response)
        event.extensions = extensions
        return event
    }
}
