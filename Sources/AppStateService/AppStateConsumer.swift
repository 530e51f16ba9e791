public import AppState
import CoreMetrics
import Foundation
public import IntentEvents
import IntentResolution
import Intents
public import Kafka
public import Logging
import Messaging
import Payments
public import PipelineTopics
public import ServiceLifecycle
public import Telemetry
import Tracing

/// Feeds the app-state store from the pipeline: final responses, ledger
/// events and messages, (given a contacts service's view key) the users'
/// contacts, for names, and (given a settings service's view key) the users'
/// settings, for the language each one's page is in, in one consumer group. Every record is checked by its
/// view signature (``ViewKey``), never by the signature money readers check:
/// this web-facing service holds view keys only. Where it has read to is kept in
/// the database, in the same transaction as each record's effects
/// (``ConsumerPosition``), and partitions are read from there, not from the
/// group's committed offsets: a lost or empty database is rebuilt from the
/// beginning of the topics. A write that fails stops the service before its
/// position moves; the store ignores events it already has, so redeliveries
/// change nothing. Offsets are still committed to the group, for lag monitoring.
public final class AppStateConsumer: Service, Sendable {
    private let store: AppStateStore
    private let configuration: KafkaConfiguration
    private let topics: PipelineTopics
    private let groupID: String
    private let sessionTimeout: Duration
    /// The writers' view keys (``EventAuthenticator/viewing``): an event is applied only if
    /// the writer allowed to produce it signed it with its view key.
    private let keys: EventAuthenticator
    /// The view keys of contacts services, if any; nil: contacts are not read, and the page shows user ids.
    private let contactKeys: EventAuthenticator?
    /// The view keys of settings services, if any; nil: settings are not read, and the page
    /// follows the browser's language.
    private let settingsKeys: EventAuthenticator?
    private let logger: Logger
    private let metrics: any MetricsFactory
    /// Where the loop reports health and spans (the operations endpoints').
    private let telemetry: Telemetry
    private let ignoredAccounts: IgnoredAccountRecords
    /// How long failed commits are retried before the service gives up (`--give-up-after`).
    private let retry: RetryPolicy

    /// - Parameter telemetry: Where records consumed, applied and refused are counted,
    ///   librdkafka's statistics (lag) go (`/metrics`), health is reported and spans are sent.
    public init(
        store: AppStateStore, configuration: KafkaConfiguration, topics: PipelineTopics, groupID: String,
        keys: EventAuthenticator, sessionTimeout: Duration = .seconds(10),
        retry: RetryPolicy = .standard, logger: Logger, telemetry: Telemetry = .unobserved
    ) {
        self.retry = retry
        self.telemetry = telemetry
        self.metrics = telemetry.metrics
        ignoredAccounts = IgnoredAccountRecords(logger: logger, metrics: metrics)
        self.keys = keys
        // Contact records are checked against contacts services' view keys alone (a stage's
        // view key naming a person is refused as the wrong producer too).
        let contactSources = Set(keys.sources.filter { $0.hasPrefix(PipelineSource.contactsPrefix) })
        self.contactKeys = contactSources.isEmpty ? nil : keys.restricted(to: contactSources)
        // Likewise settings: a forged language, signed by anyone but a settings service's view key, is refused.
        let settingsSources = Set(keys.sources.filter { $0.hasPrefix(PipelineSource.settingsPrefix) })
        self.settingsKeys = settingsSources.isEmpty ? nil : keys.restricted(to: settingsSources)
        self.store = store
        self.configuration = configuration
        self.topics = topics
        self.groupID = groupID
        self.sessionTimeout = sessionTimeout
        self.logger = logger
    }

    /// The record's event, if it is the one type its topic carries and a producer allowed
    /// on that topic signed it (with its view key: `received` is ``KafkaConsumerMessage/viewed``):
    /// responses from the stages (the resolve stage's: refused requests' final responses),
    /// message events from the handle stage, and ledger events from the ledger's writers,
    /// read as every ledger reader reads them (``LedgerRecord``) and moving only what the
    /// ledger lets their kind move (``Ledger/checkMovement(_:)``).
    ///
    /// The store acts on an event's type, so the type is bound to the topic here: a stage
    /// allowed on the responses topic (its view key in the hands of whoever runs it) would
    /// otherwise write a ledger event there, with any entries, and the page would show it
    /// as money; and a deposit the ledger refuses (one user's money "deposited" to another)
    /// would show as moved.
    private func authenticated(_ received: KafkaConsumerMessage) throws(EventDecodingError) -> EventEnvelope {
        let message = try received.structuredEvent()
        let (type, producers): (String, Producers)
        switch message.topic {
        case topics.ledger:
            let (event, ledgerEvent) = try LedgerRecord.readWithEnvelope(
                key: message.keyString, value: message.value, signature: message.signature, keys: keys)
            do throws(Ledger.ApplyError) {
                try Ledger.checkMovement(ledgerEvent)
            } catch {
                // Moving another user's money is acting for the wrong user; anything else is malformed.
                let reason: EventDecodingError.Reason
                if case .movementNotAllowed = error { reason = .wrongUser } else { reason = .schemaInvalid }
                throw EventDecodingError(reason, field: "$.data.entries", "every ledger refuses it: \(error)")
            }
            return event
        case topics.responses:
            (type, producers) = (
                IntentResponse.type,
                .only(PipelineSource.resolve, PipelineSource.confirm, PipelineSource.payments, PipelineSource.handle)
            )
        case topics.messages:
            (type, producers) = (MessageEvent.type, .only(PipelineSource.handle))
        default:
            throw EventDecodingError(
                .unknownType, field: "$.type", "the app state applies no events of \(message.topic)")
        }
        let event = try IncomingEvent.decode(key: message.keyString, value: message.value, type: type)
        try keys.verify(event, received: message.value, signature: message.signature, producedBy: producers)
        return event
    }

    /// The app state's span of a traced event: the last hop of the voice service's trace.
    private func trace(
        _ event: EventEnvelope, _ message: KafkaConsumerMessage, _ tracer: OTLPTracer,
        started: DefaultTracerClock.Instant
    ) {
        guard let parent = TraceParent(of: event) else { return }
        tracer.recordHop(
            HopSpan(parent: parent, group: groupID, input: event.id), operation: "appstate apply", started: started,
            topic: message.topic, group: groupID, intentID: event.intentID, attributes: ["event.type": "\(event.type)"])
    }

    /// Whether people are named from the users' contacts (a contacts service's view key was given).
    public var readsContacts: Bool { contactKeys != nil }

    /// Whether each user's page is in the language of their settings (a settings service's view key was given).
    public var readsSettings: Bool { settingsKeys != nil }

    /// The topics read: the contacts topic only with the keys to check it, and with it the
    /// compacted accounts topic, which a new subscription reads from the start: so a state
    /// database from before names existed learns every account opened, not only the next.
    /// The settings topic only with a settings service's view key, likewise from its start.
    public var subscribedTopics: [String] {
        [topics.responses, topics.ledger, topics.messages]
            + (contactKeys == nil ? [] : [topics.contacts, topics.accounts])
            + (settingsKeys == nil ? [] : [topics.settings])
    }

    /// Applies one record, storing the position after it with its effects; true if the user's state changed.
    private func apply(_ received: KafkaConsumerMessage, tracer: OTLPTracer?) async throws -> Bool {
        let message = received.viewed
        let position = ConsumerPosition(topic: message.topic, partition: message.partition, next: message.offset + 1)
        if message.topic == topics.contacts, let contactKeys {
            // Only a contacts service's record names people (a forged one could put a
            // trusted name on a stranger's account), and only if newer than the contact's.
            return reported(
                try await store.apply(
                    contact: ContactRecord.decode(message, authenticator: contactKeys), position: position),
                message)
        }
        if message.topic == topics.settings, let settingsKeys {
            // Only a settings service's record sets the page's language, and only if newer than the user's.
            return reported(
                try await store.apply(
                    settings: UserSettingsRecord.decode(message, authenticator: settingsKeys), position: position),
                message)
        }
        if message.topic == topics.accounts {
            // Openings and closings only, under the directory's rules: one ignored is reported.
            let structured = try message.structuredEvent()
            let event = try AccountRecord.decode(
                key: structured.keyString, value: structured.value, signature: structured.signature, keys: keys)
            guard
                let refusal = try await store.apply(
                    account: event, at: message.timestamp ?? Date(), position: position)
            else {
                return true
            }
            ignoredAccounts.record(
                reason: refusal.reason, detail: refusal.description, event: event.id, user: event.userID,
                kind: event.kind.rawValue)
            return false
        }
        let event = try authenticated(message)
        let started = DefaultTracerClock.now
        let applied = try await store.apply(event, position: position)
        if let tracer { trace(event, message, tracer, started: started) }
        return applied
    }

    /// Whether a directory record (a contact, a user's settings) changed what the user sees;
    /// one ignored as older than what the store holds is counted and logged.
    private func reported(_ application: DirectoryApplication, _ message: KafkaConsumerMessage) -> Bool {
        switch application {
        case .changed: return true
        case .unchanged: return false
        case .stale(let version, let seen):
            StaleDirectoryRecord.report(version: version, seen: seen, of: message, metrics: metrics, logger: logger)
            return false
        }
    }

    /// Where each assigned partition is read from: the position stored in the database,
    /// else the beginning (a new or lost database is rebuilt, and says so). A database
    /// that cannot be read stops the assignment at the beginning too: at worst records
    /// are applied again, which changes nothing.
    private func startingOffsets(_ partitions: [KafkaTopicPartition]) -> [KafkaTopicPartition: Int64] {
        let stored: [ConsumerPosition]
        do {
            stored = try store.positions(of: partitions.map { ($0.topic, $0.partition) })
        } catch {
            logger.error(
                "cannot read the stored positions; reading the partitions from the beginning",
                metadata: ["error": "\(error)"])
            stored = []
        }
        var offsets: [KafkaTopicPartition: Int64] = [:]
        for position in stored {
            offsets[KafkaTopicPartition(topic: position.topic, partition: position.partition)] = position.next
        }
        let rebuilt = partitions.filter { offsets[$0] == nil }
        if !rebuilt.isEmpty {
            logger.notice(
                "no position stored for these partitions: reading them from the beginning (a new or lost state database is rebuilt from the topics)",
                metadata: ["partitions": "\(rebuilt)"])
        }
        return offsets
    }

    public func run() async throws {
        var client = configuration
        if client.properties["statistics.interval.ms"] == nil { client.properties["statistics.interval.ms"] = "5000" }
        // The operations port's /ready and /health (--http-port) answer from what this loop reports.
        let health = telemetry.health
        let statistics = KafkaStatisticsMetrics(factory: metrics, health: health)
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(client: client, groupID: groupID, sessionTimeout: sessionTimeout),
            logger: logger, startingOffsets: { [self] in startingOffsets($0) }, statistics: { statistics.record($0) })
        let applied = Counter(label: "intent_appstate_events_applied_total", factory: metrics)
        let tracer = telemetry.tracer
        let consumed = Dictionary(
            uniqueKeysWithValues: subscribedTopics.map {
                ($0, Counter(label: "intent_records_consumed_total", dimensions: [("topic", $0)], factory: metrics))
            })
        do {
            try consumer.subscribe(topics: subscribedTopics)
            // A failed commit leaves the offsets stored for a later iteration (see RetryPolicy).
            var commits = GiveUpClock(policy: retry)
            var uncommitted = false
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                let batch = try await consumer.poll(timeout: .milliseconds(200))
                health.loopTurned()
                health.assigned(partitions: try consumer.assignment().count)
                if uncommitted {
                    uncommitted = try await !consumer.commit(retryingWith: &commits, logger: logger)
                }
                guard !batch.isEmpty else { continue }
                var appliedCount = 0
                var positions: [KafkaTopicPartition: ConsumerPosition] = [:]
                for message in batch {
                    positions[message.topicPartition] = ConsumerPosition(
                        topic: message.topic, partition: message.partition, next: message.offset + 1)
                    consumed[message.topic]?.increment()
                    do {
                        if try await apply(message, tracer: tracer) { appliedCount += 1 }
                    } catch let error as EventDecodingError {
                        Counter(
                            label: "intent_records_refused_total",
                            dimensions: [("topic", message.topic), ("reason", error.reason.rawValue)], factory: metrics
                        ).increment()
                        // Unreadable or not from a stage allowed to produce it: never applied; go on.
                        logger.warning(
                            "event not applied",
                            metadata: [
                                "record": "\(message.topicPartition)@\(message.offset)",
                                "reason": "\(error.reason.rawValue)", "error": "\(error)",
                            ])
                    } catch {
                        // The database did not take it: stop before committing, so the event is not
                        // lost for the app; the orchestrator restarts the service, which reads it again.
                        logger.critical(
                            "could not store an event; stopping without committing its offset",
                            metadata: ["record": "\(message.topicPartition)@\(message.offset)", "error": "\(error)"])
                        throw error
                    }
                }
                // Past the records that changed nothing too (refused, irrelevant, already applied).
                try await store.advance(to: Array(positions.values))
                try consumer.markProcessed(batch)
                applied.increment(by: appliedCount)
                uncommitted = try await !consumer.commit(retryingWith: &commits, logger: logger)
                logger.debug("applied", metadata: ["events": "\(appliedCount)", "records": "\(batch.count)"])
            }
            health.stopping()
            await consumer.close()
        } catch {
            await consumer.close()
            throw error
        }
    }
}
