import AppState
import AppStateService
import ArgumentParser
import CommandLineSupport
import Foundation
import HTTPServing
import IntentCrypto
import Logging
import OperationsEndpoint
import PipelineTopics
import ServiceLifecycle
import WorkerCommandLine

/// The app-state service's command line: the "parent app" side of the pipeline.
@main
struct IntentAppState: AsyncParsableCommand {
    /// Usage errors exit 64 with the usage; errors while running exit 1 without it (``CommandMain``).
    static func main() async { await CommandMain.run(Self.self) }

    static let configuration = CommandConfiguration(
        commandName: "intent-appstate",
        abstract: "Keep each user's app state from the pipeline and serve it over HTTP, with a web page.",
        discussion: """
            Consumes <prefix>intents.responses, <prefix>payments.ledger and <prefix>messages.history into \
            SQLite (--database), idempotently; given a contacts service's view key, <prefix>contacts and \
            <prefix>payments.accounts, so the page names people as each user's contacts do; and, given a settings \
            service's view key, <prefix>users.settings, so each user's page is in the language they chose (else \
            the browser's). It holds view keys only \
            (--view-keys: /views/... lines, a second key of each writer it shows, which no other reader trusts), so \
            a compromise of this web-facing service cannot forge anything the workers act on. It serves: GET /health, \
            GET /api/users/USER/state, GET /api/users/USER/changes?since=CURSOR&wait=SECONDS (background \
            refresh and long-poll live stream), and the web page at /?user=USER#token=TOKEN; /ready and \
            /metrics are served on the operations port (--http-port, $INTENT_HTTP_PORT) with /health. API calls need \
            the user's bearer token: HMAC-SHA256 of the user id under the app key (INTENT_APP_KEY_FILE or \
            INTENT_APP_KEY, hex, 32+ bytes); `intent-appstate token USER` prints one.

            Environment: KAFKA_BOOTSTRAP_SERVERS and KAFKA_*, INTENT_TOPIC_PREFIX, INTENT_APPSTATE_GROUP, \
            INTENT_APPSTATE_DB, INTENT_VIEW_KEYS_FILE, INTENT_APPSTATE_PORT, INTENT_APPSTATE_HEADER_TIMEOUT, \
            INTENT_APPSTATE_IDLE_TIMEOUT, INTENT_APPSTATE_MAX_CONNECTIONS, LOG_LEVEL, LOG_FORMAT (text or json: one JSON object per line).
            """,
        version: PipelineVersion.current,
        subcommands: [Serve.self, Token.self], defaultSubcommand: Serve.self)

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the service (the default).")

        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions
        @OptionGroup var worker: WorkerOptions
        @Option(
            help: ArgumentHelp(
                "The SQLite database. Default: $INTENT_APPSTATE_DB, else .intent/appstate.sqlite.", valueName: "PATH"))
        var database: String?
        @Option(
            help: ArgumentHelp(
                "File with the view keys of the writers shown (lines \"/views/workers/payments [KEYID] HEXKEY\"; "
                    + "with a /views/contacts/... key the contacts topic is read for names, else the page shows user ids; "
                    + "with a /views/settings/... key the settings topic is read for each user's language, else the page "
                    + "follows the browser's). "
                    + "Any other key is refused. Default: $INTENT_VIEW_KEYS_FILE, else $INTENT_VIEW_KEYS.",
                valueName: "FILE"))
        var viewKeys: String?
        @Option(help: "Address to listen on.") var host = "127.0.0.1"
        @Option(help: "Port to listen on. Default: $INTENT_APPSTATE_PORT, else 8080.") var port: Int?
        @Option(help: ArgumentHelp("File with the app key (hex). Default: $INTENT_APP_KEY_FILE.", valueName: "FILE"))
        var appKeyFile: String?
        @Option(
            help: ArgumentHelp(
                "Seconds a client has to send a complete request head. Default: $INTENT_APPSTATE_HEADER_TIMEOUT, else 10.",
                valueName: "SECONDS"))
        var headerTimeout: Double?
        @Option(
            help: ArgumentHelp(
                "Seconds a connection with no request in flight is kept open. Default: $INTENT_APPSTATE_IDLE_TIMEOUT, else 60.",
                valueName: "SECONDS"))
        var idleTimeout: Double?
        @Option(
            help: ArgumentHelp(
                "Seconds a response may stay stalled (the client takes none of it) before the connection is closed. "
                    + "Default: $INTENT_APPSTATE_WRITE_TIMEOUT, else 30.",
                valueName: "SECONDS"))
        var writeTimeout: Double?
        @Option(
            help: ArgumentHelp(
                "Most connections served at once. Default: $INTENT_APPSTATE_MAX_CONNECTIONS, else 4096 or, when "
                    + "the descriptor limit (raised to the hard limit, at most 4352) is lower, that limit less 256.",
                valueName: "N"))
        var maxConnections: Int?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let logger = try logging.makeLogger(label: "intent-appstate")
            let client = try kafka.configuration(clientID: "intent-appstate")
            let topics = worker.topicOptions.topics
            let path = database ?? environment["INTENT_APPSTATE_DB"] ?? ".intent/appstate.sqlite"
            // Like Go and the JVM, use the descriptors the hard limit allows
            // (the soft limit is often 1024): the default connection cap is
            // derived from it and 1,000 idle clients must not starve /health.
            FileDescriptorLimit.raise(to: 4096 + HTTPServerLimits.reservedDescriptors)
            let limits = try HTTPServerLimits.resolve(
                headerTimeout: headerTimeout, idleTimeout: idleTimeout, writeTimeout: writeTimeout,
                maxConnections: maxConnections,
                environment: environment)
            let store = try AppStateStore(path: path)
            for warning in store.fileWarnings { logger.warning("\(warning)", metadata: ["database": "\(path)"]) }
            let tokens = UserTokens(keys: try AppKey.read(file: appKeyFile))
            let observation = try worker.observation(logger: logger)
            let consumer = AppStateConsumer(
                store: store, configuration: client, topics: topics, groupID: worker.groupID(worker: "appstate"),
                keys: try Secrets.viewKeys(file: viewKeys), retry: try worker.retryPolicy(), logger: logger,
                telemetry: observation.telemetry)
            if !consumer.readsContacts {
                logger.notice("no contacts service's view key (--view-keys): people are shown by user id, not by name")
            }
            if !consumer.readsSettings {
                logger.notice(
                    "no settings service's view key (--view-keys): the page follows the browser's language, not the user's setting"
                )
            }
            // /ready and /metrics are the operator's, on the operations port (--http-port) only.
            let router = AppStateHTTP.router(store: store, tokens: tokens)
            let listenPort = port ?? environment["INTENT_APPSTATE_PORT"].flatMap(Int.init) ?? 8080
            let host = self.host
            let application = AppStateServer.application(
                router: router,
                host: host, port: listenPort, limits: limits, logger: logger,
                onListening: { port in
                    logger.info(
                        "listening",
                        metadata: [
                            "url": "http://\(host):\(port)/", "header-timeout": "\(limits.headerTimeout)",
                            "idle-timeout": "\(limits.idleTimeout)", "write-timeout": "\(limits.writeTimeout)",
                            "max-connections": "\(limits.maxConnections)",
                        ])
                })
            try await worker.run(
                CombinedServices(services: [consumer, application], logger: logger), observedBy: observation,
                needs: consumer.subscribedTopics, client: client, logger: logger)
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a user's bearer token for the API and the web page.")
        @Argument var user: String
        @Option(help: ArgumentHelp("File with the app key (hex). Default: $INTENT_APP_KEY_FILE.", valueName: "FILE"))
        var appKeyFile: String?
        @Option(help: "Seconds the token is valid (at most 30 days).") var lifetime = 24 * 3600

        func validate() throws {
            guard (1...30 * 24 * 3600).contains(lifetime) else {
                throw ValidationError("--lifetime must be 1 to 2592000 seconds (30 days), got \(lifetime)")
            }
        }

        func run() async throws {
            print(UserTokens(keys: try AppKey.read(file: appKeyFile), lifetime: .seconds(lifetime)).token(for: user))
        }
    }
}

/// The app keys: one hex key per line, oldest first. Two lines during a
/// rotation: tokens of both are accepted, the last one issues new tokens.
enum AppKey {
    static func read(file: String?) throws -> [[UInt8]] {
        let lines =
            try Secrets.read(fileVariable: "INTENT_APP_KEY_FILE", variable: "INTENT_APP_KEY", file: file)?
            .split(whereSeparator: { $0 == "\n" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") } ?? []
        let keys = lines.compactMap { Digest.bytes(hex: $0) }.filter { $0.count >= 32 }
        guard !keys.isEmpty, keys.count == lines.count else {
            throw ValidationError(
                "No app key of at least 32 bytes: pass --app-key-file FILE, or set INTENT_APP_KEY_FILE or INTENT_APP_KEY (hex, one key per line; two during a rotation)."
            )
        }
        return keys
    }
}

/// Runs several services as one (the consumer and the HTTP server), so the
/// worker runner can treat the state service like any other worker.
struct CombinedServices: Service {
    let services: [any Service]
    let logger: Logger

    func run() async throws {
        let group = ServiceGroup(
            configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
        try await group.run()
    }
}
