public import Foundation
public import IntentEvents
import Intents
import Localization

/// What the resolve worker does with one record of the requests topic,
/// without Kafka: read it strictly, skip stale turns, resolve, and say which
/// event to publish. The worker only moves bytes in and out.
public struct ResolveStage: Sendable {
    public enum Output: Sendable {
        /// Some parameter needs the user: publish to the prompts topic.
        case prompt(EventEnvelope)
        /// Everything resolved: publish to the resolved topic.
        case resolved(EventEnvelope)
        /// A stale or repeated turn; the reason goes to the log.
        case ignored(String)
        /// Bad input, for the dead-letter topic.
        case rejected(EventDecodingError)
    }

    public var resolver: IntentResolver
    public var tracker: TurnTracker
    /// The `source` of the events this stage publishes.
    public let source: String
    public let maximumEventBytes: Int
    /// Checks voice services' signatures; nil accepts unsigned events (development only).
    public let authenticator: EventAuthenticator?
    /// How old or how far ahead a request may be dated.
    public let freshness: FreshnessWindow
    /// Whether a payment needs its user bound to the voice service that asks.
    public let voiceBinding: VoiceServiceBinding

    public init(
        resolver: IntentResolver, source: String = PipelineSource.resolve, tracker: TurnTracker = TurnTracker(),
        maximumEventBytes: Int = EventEnvelope.defaultMaximumBytes, authenticator: EventAuthenticator? = nil,
        freshness: FreshnessWindow = .default, voiceBinding: VoiceServiceBinding = .required
    ) {
        self.voiceBinding = voiceBinding
        self.resolver = resolver
        self.source = source
        self.tracker = tracker
        self.maximumEventBytes = maximumEventBytes
        self.authenticator = authenticator
        self.freshness = freshness
    }

    /// Processes one record. `contacts` gives a user's contact book, `settings` the user's
    /// settings (``UserSettings``: the language they chose, the voice services they speak
    /// through), read once per request; `now` decides only freshness: what is published is
    /// dated with the request's own time, so redoing it after a crash publishes the same bytes.
    public mutating func process(
        key: String?, value: [UInt8]?, signature: EventSignature? = nil, now: Date = Date(),
        settings settingsOf: (String) -> UserSettings? = { _ in nil }, contacts: (String) -> ContactBook
    ) -> Output {
        let envelope: EventEnvelope
        let intentID: String
        let request: IntentRequested
        let settings: UserSettings?
        // What this stage derives carries the request's attributes, and the verified source
        // as the one that asked (whatever the request said it was).
        var derivedExtensions: ExtensionAttributes
        do throws(EventDecodingError) {
            let event = try IncomingEvent.decodeIntent(
                key: key, value: value, types: [IntentRequested.type], maximumBytes: maximumEventBytes)
            (envelope, intentID) = (event.envelope, event.intentID)
            try authenticator?.verify(
                envelope, received: value, signature: signature, producedBy: PipelineSource.voice)
            try freshness.check(envelope, now: now)
            settings = settingsOf(envelope.userID)
            // A user bound to voice services (in the settings) speaks through them alone.
            if let settings, !settings.admits(voiceService: envelope.source) {
                throw EventDecodingError(
                    .wrongProducer, field: "$.source",
                    "user \(envelope.userID) speaks only through \((settings.voiceServices ?? []).joined(separator: ", "))"
                )
            }
            request = try envelope.decodeData(as: IntentRequested.self)
            // Money moves only for a user enrolled with the service that asks.
            if voiceBinding == .required, request.intent.isFinancial, settings?.voiceServices == nil {
                throw EventDecodingError(
                    .wrongProducer, field: "$.source",
                    "user \(envelope.userID) is bound to no voice service, and a payment needs one (user.settings.v1 voiceServices: intentctl settings set --voice-service \(envelope.source))"
                )
            }
            var stamped = envelope
            try RequestSource.stamp(envelope.source, on: &stamped)
            derivedExtensions = stamped.extensions
        } catch {
            return .rejected(error)
        }
        switch tracker.admit(userID: envelope.userID, intentID: intentID, turn: request.turn, source: envelope.source) {
        case .resolve: break
        case .ignore(let reason): return .ignored(reason)
        case .foreignSource(let startedBy):
            return .rejected(
                EventDecodingError(
                    .wrongProducer, field: "$.source",
                    "intent \(intentID) was started by \(startedBy); only that voice service may continue it"))
        }
        let book = contacts(envelope.userID)
        var report = resolver.resolve(request, contacts: book)
        report.contactsVersion = book.version
        let needsUser = report.needsUser
        // The user's language: the request's, else the one the user chose (stamped below on
        // what this derives, so every later stage answers in it), else English.
        let requestedLocale = UserLocale.of(envelope)
        let locale =
            requestedLocale ?? settings?.locale.flatMap { UserLocale.isWellFormed($0) ? $0 : nil }
        // A prompt asks in that language; nothing else is worded here.
        if needsUser { report.wordPrompts(with: MessageRenderer(locale: locale)) }
        let type = needsUser ? IntentResolutionReport.promptType : IntentResolutionReport.resolvedType
        var event = EventEnvelope(
            id: EventID.derived(type, envelope.userID, intentID, String(request.turn)), source: source, type: type,
            time: envelope.time, subject: intentID,
            dataSchema: needsUser ? IntentResolutionReport.promptDataSchema : IntentResolutionReport.resolvedDataSchema,
            userID: envelope.userID, conversationID: envelope.conversationID, intentID: intentID,
            causationID: envelope.id, payload: report)
        event.extensions = derivedExtensions
        if requestedLocale == nil, let locale { UserLocale.stamp(locale, on: &event) }
        if needsUser { return .prompt(event) }
        tracker.markResolved(userID: envelope.userID, intentID: intentID, turn: request.turn)
        return .resolved(event)
    }
}
