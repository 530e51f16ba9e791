// swift-tools-version: 6.1
import PackageDescription

/// Strict-concurrency Swift 6 everywhere; warnings are treated as errors in CI
/// through `make lint`/`make test` (see Makefile), not here, so that a newer
/// compiler's new warning never breaks a downstream build.
///
/// Release builds optimise across modules (`-cross-module-optimization`): the hot paths
/// cross five modules per record (events, intents, a stage, the worker, Kafka), and
/// without it every generic and small function called across a module boundary runs
/// unspecialised and out of line. Measured on the 2-core machine (docs/benchmarks.md,
/// "Cross-module optimisation"): 7-12% less CPU per record on each stage's decision path
/// and about 5% on the simulation, same allocations. An unsafe flag, so this package can
/// be used by others only by path or revision, not by version: its libraries serve its
/// own executables and tests (producers integrate through `schemas/`, not Swift).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

/// tcmalloc (gperftools' minimal build: `libtcmalloc-minimal4`, or `libtcmalloc-minimal4t64`
/// on Ubuntu 24.04 and Debian 13) serves `malloc` in the payments and handle workers. Those
/// two free most memory on another thread than the one that allocated it (librdkafka's
/// records, the loop's copies handed to the producer, tasks resuming elsewhere in the pool),
/// which glibc takes through its slow paths: 16% of their CPU. Linked, payments used 0-16%
/// less CPU per event (three pairs, mean 8%) and 18-25 MiB less memory (under 150 MiB),
/// handle 12-14 MiB less at about the same CPU; preloaded into resolve and confirm, it made
/// them no faster and 15-35 MiB larger, so they keep glibc (docs/profile-2026-11-27.md,
/// "Session 14" and "Session 15"). Named by its file so no `-dev` package is needed; listed
/// before libc among the executable's libraries, so every library in the process
/// (Foundation, libcrypto, librdkafka) binds to it.
let threadCachingMalloc: [LinkerSetting] = [
    .linkedLibrary(":libtcmalloc_minimal.so.4", .when(platforms: [.linux]))
]

let package = Package(
    name: "intent-pipeline",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "IntentEvents", targets: ["IntentEvents"]),
        .library(name: "ContactResolution", targets: ["ContactResolution"]),
        .library(name: "Intents", targets: ["Intents"]),
        .library(name: "IntentResolution", targets: ["IntentResolution"]),
        .library(name: "Payments", targets: ["Payments"]),
        .library(name: "Messaging", targets: ["Messaging"]),
        .library(name: "IntentWorkers", targets: ["IntentWorkers"]),
        .library(name: "StageRuntime", targets: ["StageRuntime"]),
        .executable(name: "intent-resolve", targets: ["intent-resolve"]),
        .executable(name: "intent-confirm", targets: ["intent-confirm"]),
        .executable(name: "intent-payments", targets: ["intent-payments"]),
        .executable(name: "intent-handle", targets: ["intent-handle"]),
        .executable(name: "intent-appstate", targets: ["intent-appstate"]),
        .executable(name: "intentctl", targets: ["intentctl"]),
        .executable(name: "intent-bench", targets: ["intent-bench"]),
        .executable(name: "kafka-c-baseline", targets: ["kafka-c-baseline"]),
    ],
    // Exact versions, the ones the suite was run with (the machine's local package copies):
    // Package.resolved stays out of git here, so without pins an image build or a fresh
    // clone could resolve newer releases than were tested. Transitive packages (swift-collections,
    // swift-crypto, ...) still resolve within the ranges these versions' manifests allow. To
    // upgrade, change a pin and run `make test`.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // Already in the graph through hummingbird; named here because the
        // app-state server adds its own channel handlers (header-read timeout).
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        // Metrics API (already in the graph through hummingbird) and its Prometheus backend.
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        // Tracing API (already in the graph through hummingbird): each hop's span, exported by OTLPTracer.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", exact: "1.7.3"),
    ],
    targets: [
        // C libraries, each behind its own system-library target.
        .systemLibrary(
            name: "CRdkafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        /// glibc's malloc.h (malloc_trim): part of the C library, so nothing to install or link.
        .systemLibrary(name: "CMalloc"),
        /// Heap allocations counted per thread (malloc and friends defined over glibc's own):
        /// linked only into the stage-cost measurement (intent-bench, the tests).
        .target(name: "CMallocCounter"),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),

        // Swift wrappers that own every C pointer; no C type crosses their API.
        .target(
            name: "Kafka",
            dependencies: [
                "CRdkafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "IntentCrypto",
            dependencies: ["COpenSSL"],
            swiftSettings: swiftSettings
        ),

        // Domain and infrastructure libraries.
        .target(
            name: "IntentEvents",
            dependencies: ["IntentCrypto"],
            swiftSettings: swiftSettings
        ),
        /// Matching people by spoken name across scripts; pure, no broker.
        .target(
            name: "ContactResolution",
            // Name tables as data (nicknames, titles, patronymics), loaded once through Bundle.module.
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        /// The intents and their event payloads: what voice services publish.
        .target(
            name: "Intents",
            dependencies: ["IntentEvents"],
            swiftSettings: swiftSettings
        ),
        /// The resolve stage as pure functions: parameters, amounts, turns, contacts.
        .target(
            name: "IntentResolution",
            dependencies: ["Intents", "IntentEvents", "ContactResolution", "IntentCrypto", "Localization"],
            swiftSettings: swiftSettings
        ),
        /// What the assistant says, in the user's language: a message catalog per language
        /// and CLDR formatting of amounts and lists (Foundation's ICU formatters); pure.
        .target(
            name: "Localization",
            dependencies: ["Intents", "IntentEvents"],
            swiftSettings: swiftSettings
        ),
        /// Confirm and payments stages, and the double-entry ledger; pure.
        .target(
            name: "Payments",
            dependencies: ["Intents", "IntentEvents", "IntentCrypto", "Localization"],
            swiftSettings: swiftSettings
        ),
        /// SiriKit's confirm stage, pure: the last check before an intent is done,
        /// for messaging (to the handle stage) and payments (a proposal to the
        /// payments stage and a confirmation request with its binding).
        .target(
            name: "Confirmation",
            dependencies: ["Intents", "IntentEvents", "Payments", "Localization"],
            swiftSettings: swiftSettings
        ),
        /// The handle stage for messaging and the message history; pure.
        .target(
            name: "Messaging",
            dependencies: ["Intents", "IntentEvents", "Localization"],
            swiftSettings: swiftSettings
        ),
        /// The pipeline's topic names and how an event travels on them as a record
        /// (key, content type, signature headers, dead letters), and reading a topic
        /// whole: all a producer or reader of the topics needs, without the workers.
        .target(
            name: "PipelineTopics",
            dependencies: [
                "Kafka", "IntentCrypto", "IntentEvents", "Intents", "IntentResolution",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// A stage's consume loop as a state machine (events in, actions out): no broker,
        /// no wall clock, policies as initializer arguments.
        .target(
            name: "StageRuntime",
            swiftSettings: swiftSettings
        ),
        /// Tests' and the simulation's side of the runtime: a manual clock, an in-memory
        /// cluster, and a seeded simulation of the pipeline's stages checked by the audit.
        .target(
            name: "StageSimulation",
            dependencies: [
                "StageRuntime", "PipelineAudit", "Intents", "IntentEvents", "Payments", "Confirmation",
                "IntentResolution", "ContactResolution", "Messaging", "AppState", "PipelineTopics",
            ],
            swiftSettings: swiftSettings
        ),
        /// Kafka adapters of the stages: consume, call the pure stage, publish, commit.
        .target(
            name: "IntentWorkers",
            dependencies: [
                "Confirmation", "Kafka", "IntentEvents", "PipelineTopics", "Intents", "IntentResolution", "Payments",
                "Messaging", "Telemetry", "StageRuntime",
                "IntentCrypto", "CMalloc",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The operator's tools over the topics, outside any consumer group: replaying the
        /// resolve and confirm stages, the audit's readers (whole topics, one intent's
        /// timeline), and progress on the terminal. Used by intentctl and intent-bench;
        /// the workers never run it.
        .target(
            name: "PipelineTools",
            dependencies: [
                "Confirmation", "ContactResolution", "IntentEvents", "IntentResolution", "Intents", "Kafka", "Payments",
                "PipelineAudit", "PipelineTopics",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Health and metrics a worker reports (through swift-metrics, to any backend),
        /// librdkafka's statistics as metrics, and each hop's trace span
        /// (swift-distributed-tracing, exported over OTLP/HTTP when configured).
        .target(
            name: "Telemetry",
            dependencies: [
                "Kafka", "IntentEvents", .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The operator's endpoints every worker serves on --http-port: /health,
        /// /ready and /metrics (Prometheus text), with hummingbird.
        .target(
            name: "OperationsEndpoint",
            dependencies: [
                "Telemetry", "HTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The simulated voice service (`intentctl voice`, the demo, end-to-end tests).
        .target(
            name: "VoiceSimulator",
            dependencies: [
                "Kafka", "IntentEvents", "Intents", "PipelineTopics", "Localization",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The "parent app" state: per-user state in SQLite (GRDB), fed by the pipeline's topics.
        .target(
            name: "AppState",
            dependencies: [
                "Intents", "IntentEvents", "IntentResolution", "Payments", "Messaging",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        /// HTTP serving within limits (header-read and idle timeouts, a connection cap),
        /// shared by the app-state API and the workers' operator endpoints.
        .target(
            name: "HTTPServing",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The state service's Kafka consumer and HTTP API (hummingbird) with the web page.
        .target(
            name: "AppStateService",
            dependencies: [
                "PipelineTopics", "AppState", "Kafka", "IntentEvents", "IntentResolution", "IntentCrypto", "Intents",
                "Messaging", "Payments", "HTTPServing", "Localization",
                "Telemetry", .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Replaying the topics to check every intent's lifecycle (`intentctl audit`, the crash test).
        .target(
            name: "PipelineAudit",
            dependencies: ["Intents", "IntentEvents", "Payments", "Messaging"],
            swiftSettings: swiftSettings
        ),
        /// Options every executable shares: Kafka connection, logging, keys, topics. Knows
        /// nothing of the workers (their options are in WorkerCommandLine).
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "PipelineTopics", "Kafka", "LocalBrokerRecord", "Intents", "IntentEvents", "IntentResolution",
                "IntentCrypto", "Telemetry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The stage workers' command lines (options, environment, how each worker is built and
        /// run with the operator endpoints): the worker executables run them without fault
        /// hooks, the tests' fault host with its own.
        .target(
            name: "WorkerCommandLine",
            dependencies: [
                "CommandLineSupport", "IntentWorkers", "Confirmation", "IntentEvents", "IntentResolution", "Kafka",
                "Messaging", "OperationsEndpoint", "Payments", "PipelineTopics", "Telemetry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// What `intentctl broker start` records (address, processes) and where the
        /// checkout is: development defaults every command reads, without the harness.
        .target(name: "LocalBrokerRecord", swiftSettings: swiftSettings),
        /// The local broker harness (Tansu, moto, socat as child processes) for the demo,
        /// `intentctl broker`, benchmarks and tests. Production executables never link it.
        .target(
            name: "LocalBroker",
            dependencies: [
                "LocalBrokerRecord", "IntentEvents",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // Thin executables that only wire configuration.
        .executableTarget(
            name: "intentctl",
            dependencies: [
                "PipelineTopics", "Kafka", "IntentEvents", "LocalBroker", "LocalBrokerRecord", "ContactResolution",
                "CommandLineSupport",
                "IntentWorkers",
                "VoiceSimulator", "Payments", "Intents", "AppStateService", "PipelineAudit", "PipelineTools",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "intent-resolve",
            dependencies: ["CommandLineSupport", "WorkerCommandLine"],
            swiftSettings: swiftSettings
        ),
        /// The resolve stage's per-record work in a loop, for profiling (no Kafka).
        .executableTarget(
            name: "intent-stage-profile",
            dependencies: ["IntentResolution", "IntentEvents", "Intents", "ContactResolution"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "intent-confirm",
            dependencies: ["CommandLineSupport", "WorkerCommandLine"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "intent-payments",
            dependencies: ["CommandLineSupport", "WorkerCommandLine"],
            swiftSettings: swiftSettings,
            linkerSettings: threadCachingMalloc
        ),
        .executableTarget(
            name: "intent-handle",
            dependencies: ["CommandLineSupport", "WorkerCommandLine"],
            swiftSettings: swiftSettings,
            linkerSettings: threadCachingMalloc
        ),
        .executableTarget(
            name: "intent-appstate",
            dependencies: [
                "PipelineTopics", "AppState", "AppStateService", "CommandLineSupport", "WorkerCommandLine",
                "IntentCrypto",
                "HTTPServing", "OperationsEndpoint",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Each stage's decision path (decode, verify, decide, encode and sign) run in
        /// process, no broker: allocations and CPU time per record, and the committed ceilings.
        .target(
            name: "StageCost",
            dependencies: [
                "CMallocCounter", "Confirmation", "ContactResolution", "IntentEvents", "IntentResolution", "Intents",
                "Kafka", "Messaging", "Payments", "PipelineTopics",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "intent-bench",
            dependencies: [
                "PipelineTopics", "Kafka", "LocalBroker", "CKafkaBaseline", "Confirmation", "ContactResolution",
                "IntentCrypto", "StageCost",
                "IntentEvents",
                "IntentWorkers", "Intents", "Payments", "PipelineTools", "StageRuntime", "StageSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The raw-librdkafka baseline the benchmark compares the Swift layer
        /// against: plain C, as a library (run in-process by intent-bench) and
        /// as a standalone program.
        .target(
            name: "CKafkaBaseline",
            dependencies: ["CRdkafka"]
        ),
        .executableTarget(
            name: "kafka-c-baseline",
            dependencies: ["CKafkaBaseline"]
        ),

        /// The tests' stage host hooks (``StageHostHooks``): publish faults for in-process
        /// workers, crash and stall points for worker processes. Production executables never link it.
        .target(
            name: "StageTestHost",
            dependencies: ["IntentEvents", "IntentWorkers", "Kafka", "Payments", "PipelineTopics"],
            path: "Tests/StageTestHost",
            swiftSettings: swiftSettings
        ),
        /// `intent-fault-host WORKER ...`: a stage worker's own command line run with the fault
        /// hooks the environment asks for, for the process-level crash and fencing tests only.
        .executableTarget(
            name: "intent-fault-host",
            dependencies: ["CommandLineSupport", "WorkerCommandLine", "StageTestHost"],
            path: "Tests/FaultHost",
            swiftSettings: swiftSettings
        ),
        /// Helpers every integration test uses: a broker per test, unique names, client settings.
        .target(
            name: "BrokerTestSupport",
            dependencies: ["Kafka", "LocalBroker", .product(name: "Logging", package: "swift-log")],
            path: "Tests/BrokerTestSupport",
            swiftSettings: swiftSettings
        ),
        /// What the worker tests and the process-level tests share: the pipeline harness (a broker,
        /// the topics, a voice side), the test keys, the workers as processes and the seeded load.
        .target(
            name: "PipelineTestSupport",
            dependencies: [
                "BrokerTestSupport", "ContactResolution", "IntentCrypto", "IntentEvents", "IntentResolution",
                "IntentWorkers", "Intents", "Kafka", "LocalBroker", "Payments", "PipelineAudit", "PipelineTools",
                "PipelineTopics", "StageRuntime", "Telemetry", "VoiceSimulator",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/PipelineTestSupport",
            swiftSettings: swiftSettings
        ),
        /// The process-level tests, one at a time in their own lane beside the heavy-test gate
        /// (issue 29, point 5): every executable end to end, the manifests, graceful shutdown, a
        /// process kill, a broker outage, TLS, consumer groups, the outside Python client, the demo.
        .testTarget(
            name: "ProcessTests",
            dependencies: [
                "AppStateService", "BrokerTestSupport", "ContactResolution", "IntentCrypto", "IntentEvents",
                "IntentWorkers", "Intents", "Kafka", "LocalBroker", "Payments", "PipelineAudit", "PipelineTestSupport",
                "PipelineTools", "PipelineTopics", "StageRuntime", "VoiceSimulator",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OperationsTests",
            dependencies: [
                "Kafka", "Telemetry", "BrokerTestSupport",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: ["Kafka", "LocalBroker", "BrokerTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntentEventsTests",
            dependencies: [
                "Confirmation", "IntentEvents", "LocalBroker", "Intents", "IntentResolution", "ContactResolution",
                "Payments",
                "Messaging", "BrokerTestSupport", "StageRuntime",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LocalizationTests",
            dependencies: ["Localization", "Intents", "IntentEvents"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ContactResolutionTests",
            dependencies: ["ContactResolution"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntentResolutionTests",
            dependencies: [
                "IntentResolution", "Intents", "IntentEvents", "ContactResolution", "Localization", "StageRuntime",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntentWorkersTests",
            dependencies: [
                "Confirmation", "PipelineTopics", "IntentWorkers", "IntentResolution", "Intents", "IntentEvents",
                "ContactResolution",
                "Kafka",
                "LocalBroker", "BrokerTestSupport", "Payments", "Messaging", "VoiceSimulator", "AppStateService",
                "PipelineAudit", "PipelineTools", "Localization",
                "IntentCrypto", "AppState", "Telemetry", "OperationsEndpoint", "StageTestHost", "PipelineTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PaymentsTests",
            dependencies: ["Confirmation", "Payments", "Intents", "IntentEvents", "IntentResolution", "PipelineAudit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StageCostTests",
            dependencies: ["StageCost"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MessagingTests",
            dependencies: ["Messaging", "Intents", "IntentEvents"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppStateTests",
            dependencies: [
                "AppState", "AppStateService", "HTTPServing", "Intents", "IntentEvents", "Payments", "Messaging",
                "IntentResolution", "ContactResolution",
                "LocalBroker", "BrokerTestSupport", "Kafka", "PipelineTopics", "OperationsEndpoint", "Telemetry",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CommandLineSupportTests",
            dependencies: [
                "BrokerTestSupport", "CommandLineSupport", "WorkerCommandLine", "IntentWorkers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StageRuntimeTests",
            dependencies: ["StageRuntime", "StageSimulation"],
            swiftSettings: swiftSettings
        ),
        /// Stage logic on the simulated pipeline, scripted: what broker tests checked with worker
        /// processes and wall-clock waits (publish ordering, snapshot restore, scaling, crash
        /// recovery, replays), on the in-memory cluster with the real stages.
        .testTarget(
            name: "StageSimulationTests",
            dependencies: ["StageSimulation", "IntentEvents", "Intents", "Payments"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntentCryptoTests",
            dependencies: ["IntentCrypto"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
