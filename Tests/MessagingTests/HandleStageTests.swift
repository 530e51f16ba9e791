import Foundation
import IntentEvents
import Intents
import Messaging
import Testing

let t0 = Date(timeIntervalSince1970: 1_795_000_000)
let xiaoming = Person(spoken: "小明", handle: "+86 138", contactID: "c-xm", displayName: "小明")
let dima = Person(spoken: "Дима", contactID: "c-dima", displayName: "Дмитрий")
/// One key per stage, as the workers hold them.
let stageKeys = EventAuthenticator(
    keys: PipelineSource.all.enumerated().map {
        SigningKey(source: $1, bytes: Array(repeating: UInt8($0 + 1), count: 32))
    })

func confirmed(_ intent: Intent, intentID: String, user: String = "u1") -> EventEnvelope {
    EventEnvelope(
        id: "confirmed-\(intentID)", source: "/workers/confirm", type: IntentConfirmation.type, time: t0,
        dataSchema: IntentConfirmation.dataSchema, userID: user, conversationID: "c", intentID: intentID,
        payload: IntentConfirmation(turn: 1, intent: intent, code: .ready, proposedResponse: "?"))
}

extension StageResult {
    var response: IntentResponse? {
        events.first { $0.destination == .responses }.flatMap { try? $0.event.decodeData(as: IntentResponse.self) }
    }
    var messageEvents: [MessageEvent] {
        events.filter { $0.destination == .messages }.compactMap { try? $0.event.decodeData(as: MessageEvent.self) }
    }
}

@Suite("The handle stage for messaging")
struct HandleStageTests {
    let stage = HandleStage(authenticator: stageKeys, slowServices: ["satellite": .seconds(5)])

    /// The confirmed intent, dated `now` and signed by the confirm stage, through the stage.
    func run(_ event: EventEnvelope, _ history: inout MessageHistory, at now: Date = t0) -> StageResult {
        var event = event
        event.time = now
        return stage.process(
            key: event.userID, value: event.encoded(), signature: stageKeys.signature(for: event), history: &history)
    }

    @Test("send: delivered once; a redelivered intent repeats the response and sends nothing")
    func send() throws {
        var history = MessageHistory()
        let intent = Intent.sendMessage(SendMessageIntent(recipients: [xiaoming], content: "晚上好"))
        let first = run(confirmed(intent, intentID: "m1"), &history)
        #expect(first.response?.code == .success)
        #expect(first.messageEvents.map(\.kind) == [.delivered])
        let again = run(confirmed(intent, intentID: "m1"), &history, at: t0.addingTimeInterval(5))
        #expect(again.messageEvents.isEmpty)
        #expect(again.response?.messageIDs == first.response?.messageIDs)
        #expect(history.messages(of: "u1").count == 1)
        #expect(history.messages(of: "u1").first?.status == .delivered)
    }

    @Test("a slow service answers inProgress at once and completes later, once")
    func slow() throws {
        var history = MessageHistory()
        let intent = Intent.sendMessage(
            SendMessageIntent(recipients: [dima], content: "привет", serviceName: "Satellite"))
        let first = run(confirmed(intent, intentID: "m2"), &history)
        #expect(first.response?.code == .inProgress)
        #expect(first.messageEvents.map(\.kind) == [.queued])
        #expect(stage.tick(history: &history, now: t0.addingTimeInterval(4), owns: { _ in true }).events.isEmpty)
        let done = stage.tick(history: &history, now: t0.addingTimeInterval(5), owns: { _ in true })
        #expect(done.response?.code == .success)
        #expect(done.messageEvents.map(\.kind) == [.delivered])
        #expect(stage.tick(history: &history, now: t0.addingTimeInterval(9), owns: { _ in true }).events.isEmpty)
        // Final and in-progress responses have different ids; the final one is unique per intent.
        let progressID = first.events.first { $0.destination == .responses }?.event.id
        let finalID = done.events.first { $0.destination == .responses }?.event.id
        #expect(progressID != finalID)
        #expect(stage.tick(history: &history, now: t0.addingTimeInterval(9), owns: { _ in false }).events.isEmpty)
    }

    @Test("a slow delivery to a group named with 256 characters is an event every reader takes")
    func slowDeliveryToALongGroupName() throws {
        var history = MessageHistory()
        // At the schema's bound for a group name; the conversation is "group:" and the name.
        let intent = Intent.sendMessage(
            SendMessageIntent(
                recipients: [dima], content: "привет", groupName: String(repeating: "g", count: 256),
                serviceName: "Satellite"))
        _ = run(confirmed(intent, intentID: "long-group"), &history)
        let done = stage.tick(history: &history, now: t0.addingTimeInterval(5), owns: { _ in true })
        #expect(done.events.count == 2)
        for (_, event) in done.events {
            #expect(throws: Never.self, "\(event.type)") { try EventEnvelope.decode(event.encoded()) }
        }
        #expect(done.response?.code == .success)
    }

    @Test("a delivery restored from the topic is answered again, with the very same response, once")
    func restoredDeliveryAnsweredAgain() throws {
        var history = MessageHistory()
        let intent = Intent.sendMessage(
            SendMessageIntent(recipients: [dima], content: "привет", serviceName: "Satellite"))
        var written = run(confirmed(intent, intentID: "m3"), &history).messageEvents
        let done = stage.tick(history: &history, now: t0.addingTimeInterval(5), owns: { _ in true })
        written += done.messageEvents
        let original = try #require(done.events.first { $0.destination == .responses }?.event)
        // The member that delivered answered: nothing to say again.
        #expect(stage.tick(history: &history, now: t0.addingTimeInterval(6), owns: { _ in true }).events.isEmpty)

        // Another member restores the queued and delivered events (it cannot know whether the
        // answer went out): its next tick says it again, identically, and then never again.
        var restored = MessageHistory()
        for event in written { restored.apply(event) }
        let again = stage.tick(history: &restored, now: t0.addingTimeInterval(30), owns: { _ in true })
        #expect(again.messageEvents.isEmpty)
        #expect(again.events.map(\.event) == [original])
        #expect(stage.tick(history: &restored, now: t0.addingTimeInterval(31), owns: { _ in true }).events.isEmpty)

        // Restored long after the delivery (past the window): not answered again.
        var late = MessageHistory()
        for event in written { late.apply(event) }
        let window = Double(HandleStage.reanswerWindow.components.seconds)
        #expect(stage.tick(history: &late, now: t0.addingTimeInterval(6 + window), owns: { _ in true }).events.isEmpty)
        // Nor for users another member owns.
        var other = MessageHistory()
        for event in written { other.apply(event) }
        #expect(stage.tick(history: &other, now: t0.addingTimeInterval(30), owns: { _ in false }).events.isEmpty)
    }

    @Test("search finds by recipient, keyword, attribute and date; set attribute changes them")
    func searchAndMark() throws {
        var history = MessageHistory()
        _ = run(
            confirmed(.sendMessage(SendMessageIntent(recipients: [xiaoming], content: "Dinner at 7?")), intentID: "a"),
            &history)
        _ = run(
            confirmed(.sendMessage(SendMessageIntent(recipients: [dima], content: "ужин в 7")), intentID: "b"),
            &history,
            at: t0.addingTimeInterval(3600))
        func search(_ search: SearchForMessagesIntent, _ id: String) -> [String] {
            run(confirmed(.searchForMessages(search), intentID: id), &history).response?.messageIDs ?? ["failed"]
        }
        let all = search(SearchForMessagesIntent(), "s1")
        #expect(all.count == 2)
        #expect(search(SearchForMessagesIntent(recipients: [dima]), "s2").count == 1)
        #expect(search(SearchForMessagesIntent(keywords: ["DINNER"]), "s3").count == 1)
        #expect(
            search(SearchForMessagesIntent(dateRange: DateRange(start: t0.addingTimeInterval(60))), "s4").count == 1)
        #expect(search(SearchForMessagesIntent(attributes: [.flagged]), "s5").isEmpty)

        let mark = run(
            confirmed(
                .setMessageAttribute(SetMessageAttributeIntent(messageIDs: [all[0]], attribute: .flagged)),
                intentID: "f"),
            &history)
        #expect(mark.response?.code == .success)
        #expect(search(SearchForMessagesIntent(attributes: [.flagged]), "s6") == [all[0]])
        let unknown = run(
            confirmed(
                .setMessageAttribute(SetMessageAttributeIntent(messageIDs: ["nope"], attribute: .read)), intentID: "g"),
            &history)
        #expect(unknown.response?.code == .failure)
        #expect(unknown.response?.reason == "unknownMessage")
        // Another user's history is not searched.
        let other = run(
            confirmed(.searchForMessages(SearchForMessagesIntent()), intentID: "s7", user: "u2"), &history)
        #expect(other.response?.messageIDs == [])
    }

    @Test("a search's response names the newest 256 matches and counts them all")
    func searchOfALongHistory() throws {
        // A history is never trimmed: a response naming every match went past the largest
        // record the producer sends at about 23,000, and stopped the worker (SECURITY.md, 48).
        var history = MessageHistory()
        var sent: [String] = []
        for index in 0..<300 {
            let send = run(
                confirmed(
                    .sendMessage(SendMessageIntent(recipients: [xiaoming], content: "note \(index)")),
                    intentID: "n\(index)"),
                &history, at: t0.addingTimeInterval(Double(index)))
            sent += send.response?.messageIDs ?? []
        }
        #expect(sent.count == 300)
        let found = run(confirmed(.searchForMessages(SearchForMessagesIntent()), intentID: "all"), &history)
        // 256: as many as one setMessageAttribute may name (its schema's maxItems).
        #expect(found.response?.messageIDs == Array(sent.suffix(256)))
        #expect(found.response?.messageArguments?["count"] == .number(300))
    }

    @Test("replaying the message events rebuilds the same history")
    func replay() throws {
        var history = MessageHistory()
        var written: [MessageEvent] = []
        written +=
            run(
                confirmed(.sendMessage(SendMessageIntent(recipients: [xiaoming], content: "a")), intentID: "a"),
                &history
            ).messageEvents
        written +=
            run(
                confirmed(
                    .sendMessage(SendMessageIntent(recipients: [dima], content: "b", serviceName: "satellite")),
                    intentID: "b"), &history
            ).messageEvents
        written += stage.tick(history: &history, now: t0.addingTimeInterval(10), owns: { _ in true }).messageEvents
        var rebuilt = MessageHistory()
        for event in written + written { rebuilt.apply(event) }
        #expect(rebuilt.messages(of: "u1") == history.messages(of: "u1"))
        #expect(rebuilt.messages(of: "u1").allSatisfy { $0.status == .delivered })
    }
}

@Suite("The handle stage acts only on the confirm stage's events")
struct HandleStageTrustTests {
    let stage = HandleStage(authenticator: stageKeys)
    let intent = Intent.sendMessage(SendMessageIntent(recipients: [xiaoming], content: "hi"))

    @Test("unsigned, forged, and another stage's events are rejected and send nothing")
    func untrusted() throws {
        var history = MessageHistory()
        let event = confirmed(intent, intentID: "m-forged")
        var byResolve = event
        byResolve.source = PipelineSource.resolve
        let otherKey = EventAuthenticator(keys: [PipelineSource.confirm: Array(repeating: 99, count: 32)])
        let cases: [(EventEnvelope, EventSignature?, EventDecodingError.Reason)] = [
            (event, nil, .unauthenticated),
            (event, otherKey.signature(for: event), .unauthenticated),
            (byResolve, stageKeys.signature(for: byResolve), .wrongProducer),
        ]
        for (event, signature, reason) in cases {
            let result = stage.process(
                key: event.userID, value: event.encoded(), signature: signature, history: &history)
            #expect(result.rejected?.reason == reason)
            #expect(result.events.isEmpty)
        }
        #expect(history.messages(of: "u1").isEmpty)
        // The same event signed by the confirm stage is handled.
        let signed = stage.process(
            key: event.userID, value: event.encoded(), signature: stageKeys.signature(for: event), history: &history)
        #expect(signed.response?.code == .success)
    }
}
