public import Foundation
public import IntentEvents
public import Intents
import Localization

/// SiriKit's handle stage for messaging, as a pure function over the
/// history: send a message, search the user's messages, set attributes.
/// Effects are keyed by the intent (message ids derive from it), so a
/// redelivered intent repeats its response instead of sending twice. A send
/// through a slow service answers `inProgress` at once and completes when
/// the tick delivers it.
public struct HandleStage: Sendable {
    /// Services that take a while, and how long.
    public var slowServices: [String: Duration]
    /// Checks that confirmed intents come from the confirm stage.
    public let authenticator: EventAuthenticator
    public let source: String

    /// How old a confirmed intent may be when it is handled (``FreshnessWindow/stageEvents``
    /// in the worker); nil handles any (tests of other rules).
    public var freshness: FreshnessWindow?

    public init(
        authenticator: EventAuthenticator, slowServices: [String: Duration] = [:],
        source: String = PipelineSource.handle, freshness: FreshnessWindow? = nil
    ) {
        self.freshness = freshness
        self.authenticator = authenticator
        self.slowServices = Dictionary(uniqueKeysWithValues: slowServices.map { ($0.key.lowercased(), $0.value) })
        self.source = source
    }

    /// One confirmed intent. Times (and so every output's bytes) come from the input,
    /// so handling it again after a crash repeats exactly what was published.
    public func process(
        key: String?, value: [UInt8]?, signature: EventSignature?, history: inout MessageHistory
    ) -> StageResult {
        var unremembered: ReplayGuard?
        return process(key: key, value: value, signature: signature, history: &history, seen: &unremembered)
    }

    /// What this stage takes (also what a worker remembers of a partition it gains).
    public var input: StageInput<IntentConfirmation> {
        StageInput(
            type: IntentConfirmation.type, producer: PipelineSource.confirm, keys: authenticator, freshness: freshness)
    }

    /// The same, for a worker: `seen` remembers the confirmed intents acted on (a copy
    /// re-appended to the topic answers nothing again), `now` decides only freshness.
    public func process(
        key: String?, value: [UInt8]?, signature: EventSignature?, history: inout MessageHistory,
        now wallClock: Date = Date(), seen: inout ReplayGuard?
    ) -> StageResult {
        let envelope: EventEnvelope
        let intentID: String
        let confirmation: IntentConfirmation
        do throws(EventDecodingError) {
            (envelope, intentID, confirmation) = try input.verified(
                key: key, value: value, signature: signature, now: wallClock)
            if let refused = seen?.outcome(for: envelope, bytes: value, signature: signature, now: wallClock) {
                return refused
            }
        } catch {
            return .rejected(error)
        }
        let now = envelope.time
        guard confirmation.code == .ready else { return .ignored("confirm result \(confirmation.code); nothing to do") }
        switch confirmation.intent {
        case .sendMessage(let message): return send(message, envelope, intentID, &history, now)
        case .searchForMessages(let search): return self.search(search, envelope, intentID, history, now)
        case .setMessageAttribute(let change): return set(change, envelope, intentID, &history, now)
        case .sendPayment, .requestPayment: return .ignored("payments are handled by the payments worker")
        }
    }

    // MARK: Send

    private func send(
        _ intent: SendMessageIntent, _ envelope: EventEnvelope, _ intentID: String, _ history: inout MessageHistory,
        _ now: Date
    ) -> StageResult {
        let userID = envelope.userID
        let existing = history.messages(forIntent: intentID, of: userID)
        if !existing.isEmpty {
            // Already handled: say the same again.
            let delivered = existing.allSatisfy { $0.status == .delivered }
            return StageResult(events: [
                (
                    .responses,
                    response(
                        envelope, intentID, .sendMessage, delivered ? .success : .inProgress, existing.map(\.id), now)
                )
            ])
        }
        let messageID = EventID.derived(prefix: "msg-", "message", userID, intentID)
        let delay = intent.serviceName.flatMap { slowServices[$0.lowercased()] }
        let stamp = Timestamp(now)
        let event = MessageEvent(
            id: EventID.derived("message-event", delay == nil ? "delivered" : "queued", messageID),
            kind: delay == nil ? .delivered : .queued, userID: userID, intentID: intentID, messageIDs: [messageID],
            conversation: Self.conversation(intent), recipients: intent.recipients, content: intent.content ?? "",
            serviceName: intent.serviceName, at: stamp,
            dueAt: delay.map { Timestamp(now.addingTimeInterval(Double($0.components.seconds))) },
            locale: delay == nil ? nil : UserLocale.of(envelope))
        history.apply(event)
        return StageResult(events: [
            (.messages, wrap(event, envelope, now)),
            (
                .responses,
                response(envelope, intentID, .sendMessage, delay == nil ? .success : .inProgress, [messageID], now)
            ),
        ])
    }

    /// How long after a tick's delivery its final response is sent again by a member that
    /// restored the delivery without knowing whether it was answered (a crash between the
    /// delivery and its answer): far longer than a takeover takes.
    public static let reanswerWindow: Duration = .seconds(600)

    /// Delivers queued messages whose time has come and completes their intents; and answers
    /// again the deliveries restored from the topic whose answer may have been lost.
    public func tick(history: inout MessageHistory, now: Date = Date(), owns: (String) -> Bool) -> StageResult {
        var result = StageResult()
        let since = Timestamp(now.addingTimeInterval(-Double(Self.reanswerWindow.components.seconds)))
        for message in history.takeUnanswered(deliveredSince: since, owns: owns) {
            result.events.append((.responses, deliveryResponse(message)))
        }
        for message in history.due(at: Timestamp(now), owns: owns) {
            // Dated when it was due, not when the tick ran: a tick repeated after a crash is the same.
            let now = message.dueAt?.date ?? now
            let event = MessageEvent(
                id: EventID.derived("message-event", "delivered", message.id), kind: .delivered, userID: message.userID,
                intentID: message.intentID, messageIDs: [message.id], conversation: message.conversation,
                recipients: message.recipients, content: message.content, serviceName: message.serviceName,
                at: Timestamp(now))
            history.apply(event)
            history.answered(message.id, of: message.userID)
            var delivered = message
            delivered.sentAt = Timestamp(now)
            result.events.append((.messages, wrap(event, deliveryCause(message, now), now)))
            result.events.append((.responses, deliveryResponse(delivered)))
        }
        return result
    }

    /// What a tick's delivery of `message` is caused by, dated `now`, in the sender's language
    /// as the queued message recorded it.
    private func deliveryCause(_ message: MessageHistory.Message, _ now: Date) -> EventEnvelope {
        var cause = EventEnvelope(
            id: EventID.derived("delivery", message.id), source: source, type: "message.delivery.v1", time: now,
            userID: message.userID, conversationID: Self.conversationID(message.conversation),
            intentID: message.intentID, data: .object([:]))
        if let locale = message.locale { UserLocale.stamp(locale, on: &cause) }
        return cause
    }

    /// A message's conversation as an envelope's `conversationid`, which every reader holds to
    /// ``EventEnvelope/maximumIdentifierLength`` bytes: itself when it fits, else an id derived
    /// from it. A group name of 256 characters ("group:" before it), or a few recipients named
    /// by long contact ids, made a delivered message and its final response no reader took.
    static func conversationID(_ conversation: String) -> String {
        conversation.utf8.count <= EventEnvelope.maximumIdentifierLength
            ? conversation : EventID.derived("conversation", conversation)
    }

    /// The final response of a tick's delivery: derived from the message alone (dated when it
    /// was due), so answering again gives the very same event.
    private func deliveryResponse(_ message: MessageHistory.Message) -> EventEnvelope {
        let due = message.dueAt?.date ?? message.sentAt.date
        return response(
            deliveryCause(message, due), message.intentID, .sendMessage, .success, [message.id], due)
    }

    // MARK: Search

    private func search(
        _ search: SearchForMessagesIntent, _ envelope: EventEnvelope, _ intentID: String, _ history: MessageHistory,
        _ now: Date
    ) -> StageResult {
        let recipients = Set((search.recipients ?? []).compactMap(\.contactID))
        let keywords = (search.keywords ?? []).map { $0.lowercased() }
        let attributes = Set(search.attributes ?? [])
        let found = history.messages(of: envelope.userID).filter { message in
            (recipients.isEmpty || message.recipients.contains { $0.contactID.map(recipients.contains) ?? false })
                && keywords.allSatisfy { message.content.lowercased().contains($0) }
                && attributes.isSubset(of: message.attributes)
                && (search.dateRange?.start.map { message.sentAt.date >= $0 } ?? true)
                && (search.dateRange?.end.map { message.sentAt.date <= $0 } ?? true)
        }
        // The count is all of them; the ids, the newest that fit a record (a follow-up
        // attribute change takes that many too).
        let newest = found.suffix(Self.searchResultLimit).map(\.id)
        return StageResult(events: [
            (.responses, response(envelope, intentID, .searchForMessages, .success, newest, now, found: found.count))
        ])
    }

    /// How many message ids a search's response carries at most: `setMessageAttribute`'s own
    /// limit (``Intent/Limits/messageIDs``). A history is never trimmed, and a response listing
    /// every match of a long one went past the largest record the producer sends (about 23,000
    /// ids), which stopped the worker and, redelivered, every member after it.
    public static let searchResultLimit = Intent.Limits.messageIDs

    // MARK: Attributes

    private func set(
        _ change: SetMessageAttributeIntent, _ envelope: EventEnvelope, _ intentID: String,
        _ history: inout MessageHistory, _ now: Date
    ) -> StageResult {
        guard let attribute = change.attribute else { return .ignored("no attribute") }
        let unknown = change.messageIDs.filter { history.message($0, of: envelope.userID) == nil }
        guard unknown.isEmpty else {
            let failure = IntentResponse(
                kind: .setMessageAttribute, code: .failure, reason: "unknownMessage",
                saying: LocalizedMessage(.noSuchMessage, ["ids": .names(unknown)]), answering: envelope,
                messageIDs: unknown)
            return StageResult(events: [
                (.responses, envelope.response(failure, source: source, time: now, intentID: intentID))
            ])
        }
        let event = MessageEvent(
            id: EventID.derived("message-event", "attributeSet", envelope.userID, intentID), kind: .attributeSet,
            userID: envelope.userID, intentID: intentID, messageIDs: change.messageIDs, at: Timestamp(now),
            attribute: attribute)
        history.apply(event)
        return StageResult(events: [
            (.messages, wrap(event, envelope, now)),
            (.responses, response(envelope, intentID, .setMessageAttribute, .success, change.messageIDs, now)),
        ])
    }

    // MARK: Events

    /// - Parameter found: For a search, how many messages matched (`messageIDs` may hold fewer).
    private func response(
        _ cause: EventEnvelope, _ intentID: String, _ kind: Intent.Kind, _ code: ResponseCode, _ messageIDs: [String],
        _ now: Date, found: Int? = nil
    ) -> EventEnvelope {
        let message =
            switch code {
            case .inProgress: LocalizedMessage(.messageSending)
            case .success:
                kind == .searchForMessages
                    ? LocalizedMessage(.messagesFound, ["count": .number(found ?? messageIDs.count)])
                    : LocalizedMessage(.messageDone)
            default: LocalizedMessage(.messageFailed, ["code": .text(code.rawValue)])
            }
        return cause.response(
            IntentResponse(kind: kind, code: code, saying: message, answering: cause, messageIDs: messageIDs),
            source: source, time: now, intentID: intentID)
    }

    private func wrap(_ event: MessageEvent, _ cause: EventEnvelope, _ now: Date) -> EventEnvelope {
        var envelope = EventEnvelope(
            id: event.id, source: source, type: MessageEvent.type, time: now, subject: event.messageIDs.first,
            dataSchema: MessageEvent.dataSchema, userID: event.userID, conversationID: cause.conversationID,
            intentID: event.intentID, causationID: cause.id, payload: event)
        envelope.extensions = cause.extensions
        return envelope
    }

    static func conversation(_ intent: SendMessageIntent) -> String {
        if let group = intent.groupName { return "group:\(group)" }
        return "with:"
            + intent.recipients.map { $0.contactID ?? $0.handle ?? $0.spoken ?? "?" }.sorted().joined(separator: ",")
    }
}
