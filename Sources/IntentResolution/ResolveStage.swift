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
        /// A voice service's signed, fresh request that would have started an intent but
        /// fails validation: dead-lettered as ``rejected(_:)``, and the intent ends with
        /// `finalResponse` (a failure naming the dead letter's reason), for the responses
        /// topic, so the service that asked hears the outcome instead of waiting for one.
        case refused(EventDecodingError, finalResponse: EventEnvelope)
    }

    public var resolver: IntentResolver {
        didSet { configurationVersion = resolver.configurationVersion }
    }
    /// ``resolver``'s ``IntentResolver/configurationVersion``, recorded in every decision.
    private var configurationVersion: String
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
        configurationVersion = resolver.configurationVersion
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
            (envelope, intentID, settings) = try authenticated(
                key: key, value: value, signature: signature, now: now, settings: settingsOf)
        } catch {
            return .rejected(error)
        }
        do throws(EventDecodingError) {
            request = try checked(envelope, settings: settings)
            var stamped = envelope
            try RequestSource.stamp(envelope.source, on: &stamped)
            derivedExtensions = stamped.extensions
        } catch {
            return refusal(of: envelope, intentID: intentID, error)
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
        var report = resolver.recordedDecision(request, contacts: book, configuration: configurationVersion)
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

    /// A request read back from the input partition (a worker that gained it, see the
    /// worker's `ReplayMemory`), admitted to the turn tracker as ``process(key:value:signature:now:settings:contacts:)``
    /// admitted it when it acted: only if it passes the same checks. That is what makes a
    /// copy of a turn re-appended after a restart or a rebalance a repeat (`ignored`), as it
    /// is to a worker that never stopped. Whether the intent then went on to the confirm
    /// stage (``TurnTracker/markResolved(userID:intentID:turn:)``) is not re-derived: that
    /// took the contacts of the time, and it only stops a *newer* turn, never a copy.
    public mutating func remember(
        key: String?, value: [UInt8]?, signature: EventSignature?, now: Date = Date(),
        settings: (String) -> UserSettings? = { _ in nil }
    ) {
        remember(verifiedAtAnyAge(key: key, value: value, signature: signature), now: now, settings: settings)
    }

    /// A request as ``remember(key:value:signature:now:settings:)`` finds it before the checks
    /// that depend on the time read or on the users' settings: decoded and signed by a voice
    /// service, with its payload decoded (or why that failed: a request refused for it still
    /// ends its intent). The same bytes always give the same value.
    public struct ReadBack: Sendable {
        let envelope: EventEnvelope
        let intentID: String
        let request: Result<IntentRequested, EventDecodingError>
    }

    /// What ``remember(key:value:signature:now:settings:)`` checks of a record but freshness
    /// and settings: nil if it is not a request a voice service signed. For a reader that
    /// reads the same immutable record back again and again (the simulation's replay memory,
    /// on every member that gains its partition), which keeps this and makes the rest of the
    /// checks per read (``remember(_:now:settings:)``).
    public func verifiedAtAnyAge(key: String?, value: [UInt8]?, signature: EventSignature?) -> ReadBack? {
        guard let (envelope, intentID) = try? signed(key: key, value: value, signature: signature) else {
            return nil
        }
        let request = Result { () throws(EventDecodingError) in try Self.request(of: envelope) }
        return ReadBack(envelope: envelope, intentID: intentID, request: request)
    }

    /// ``remember(key:value:signature:now:settings:)`` for a record checked already by
    /// ``verifiedAtAnyAge(key:value:signature:)`` (nil: it failed): only the checks that
    /// depend on the time read (`now`) and on the users' `settings` are made.
    public mutating func remember(
        _ readBack: ReadBack?, now: Date = Date(), settings settingsOf: (String) -> UserSettings? = { _ in nil }
    ) {
        guard let readBack else { return }
        let envelope = readBack.envelope
        let settings: UserSettings?
        do throws(EventDecodingError) {
            settings = try admitted(envelope, now: now, settings: settingsOf)
        } catch {
            return
        }
        do throws(EventDecodingError) {
            let request = try readBack.request.get()
            try bound(request, envelope, settings: settings)
            _ = tracker.admit(
                userID: envelope.userID, intentID: readBack.intentID, turn: request.turn, source: envelope.source)
        } catch {
            // A refusal that ended its intent: later turns of it are ignored, as they were.
            if Self.kind(of: envelope) != nil {
                _ = tracker.refuse(userID: envelope.userID, intentID: readBack.intentID, source: envelope.source)
            }
        }
    }

    /// A request decoded and authenticated: signed by a voice service, fresh, and from one
    /// the user speaks through; with the user's settings, read once. What fails here is only
    /// dead-lettered: it may not be the voice service's to hear about (``refusal(of:intentID:_:)``).
    private func authenticated(
        key: String?, value: [UInt8]?, signature: EventSignature?, now: Date,
        settings settingsOf: (String) -> UserSettings?
    ) throws(EventDecodingError) -> (EventEnvelope, String, UserSettings?) {
        let (envelope, intentID) = try signed(key: key, value: value, signature: signature)
        return (envelope, intentID, try admitted(envelope, now: now, settings: settingsOf))
    }

    /// The half of ``authenticated(key:value:signature:now:settings:)`` that depends only on
    /// the record's bytes: a request, signed by a voice service.
    private func signed(key: String?, value: [UInt8]?, signature: EventSignature?) throws(EventDecodingError)
        -> (EventEnvelope, String)
    {
        let event = try IncomingEvent.decodeIntent(
            key: key, value: value, type: IntentRequested.type, maximumBytes: maximumEventBytes)
        try authenticator?.verify(
            event.envelope, received: value, signature: signature, producedBy: PipelineSource.voice)
        return (event.envelope, event.intentID)
    }

    /// The other half: fresh at `now`, and from a voice service the user speaks through; the
    /// user's settings, read once.
    private func admitted(
        _ envelope: EventEnvelope, now: Date, settings settingsOf: (String) -> UserSettings?
    ) throws(EventDecodingError) -> UserSettings? {
        try freshness.check(envelope, now: now)
        let settings = settingsOf(envelope.userID)
        // A user bound to voice services (in the settings) speaks through them alone.
        if let settings, !settings.admits(voiceService: envelope.source) {
            throw EventDecodingError(
                .wrongProducer, field: "$.source",
                "user \(envelope.userID) speaks only through \((settings.voiceServices ?? []).joined(separator: ", "))"
            )
        }
        return settings
    }

    /// An authenticated request's payload, checked: well formed, and for a payment from a
    /// voice service the user is bound to (``VoiceServiceBinding/required``).
    private func checked(_ envelope: EventEnvelope, settings: UserSettings?) throws(EventDecodingError)
        -> IntentRequested
    {
        let request = try Self.request(of: envelope)
        try bound(request, envelope, settings: settings)
        return request
    }

    /// The request's payload, within the schema's sizes (``Intent/checkLimits()``): what the
    /// resolver and every prompt and response built from it can take.
    private static func request(of envelope: EventEnvelope) throws(EventDecodingError) -> IntentRequested {
        let request = try envelope.decodeData(as: IntentRequested.self)
        try request.intent.checkLimits()
        return request
    }

    /// Money moves only for a user enrolled with the voice service that asks.
    private func bound(_ request: IntentRequested, _ envelope: EventEnvelope, settings: UserSettings?)
        throws(EventDecodingError)
    {
        if voiceBinding == .required, request.intent.isFinancial, settings?.voiceServices == nil {
            throw EventDecodingError(
                .wrongProducer, field: "$.source",
                "user \(envelope.userID) is bound to no voice service, and a payment needs one (user.settings.v1 voiceServices: intentctl settings set --voice-service \(envelope.source))"
            )
        }
    }

    /// The answer to an authenticated request that fails ``checked(_:settings:)``: when it
    /// would have started its intent (nothing of the intent admitted before) and names a
    /// kind of intent, the intent ends there with a final failure response saying why, in the
    /// request's language; otherwise (a bad later turn of an intent under way, or no kind to
    /// answer for) it is only dead-lettered. The response's id is the intent's final one, so a
    /// redelivered request publishes the same bytes, and an intent never gets a second final.
    private mutating func refusal(of envelope: EventEnvelope, intentID: String, _ error: EventDecodingError)
        -> Output
    {
        // Stamped as every event derived from a request is: the verified source asked.
        var cause = envelope
        guard let kind = Self.kind(of: envelope), (try? RequestSource.stamp(envelope.source, on: &cause)) != nil,
            tracker.refuse(userID: envelope.userID, intentID: intentID, source: envelope.source)
        else { return .rejected(error) }
        let reason = error.reason.rawValue
        let response = IntentResponse(
            kind: kind, code: .failure, reason: reason,
            saying: LocalizedMessage(.requestRefused, ["reason": .text(reason)]), answering: envelope)
        return .refused(
            error, finalResponse: cause.response(response, source: source, time: envelope.time, intentID: intentID))
    }

    /// The kind of intent a request names (`data.intent.kind`), read without decoding the
    /// rest of it, which may be what is wrong.
    static func kind(of envelope: EventEnvelope) -> Intent.Kind? {
        envelope.data.objectValue?["intent"]?.objectValue?["kind"]?.stringValue.flatMap(Intent.Kind.init(rawValue:))
    }
}
