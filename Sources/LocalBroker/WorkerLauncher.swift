public import Foundation
import IntentEvents

/// Starts the pipeline's workers as their own processes, configured the way
/// the deployment configures them: by environment only, with key files of
/// mode 0600 (the workers refuse keys others could read). The demo, the tests
/// and the benchmark all start workers here, so a worker's configuration is
/// spelled once.
public struct WorkerLauncher: Sendable {
    /// The keys a pipeline runs with, as their files hold them.
    public struct Keys: Sendable {
        /// `SOURCE [KEYID] HEXKEY` lines: voice services and the contacts service.
        public var sourceKeys: String
        /// The payments binding key, hex.
        public var bindingKey: String
        /// `SOURCE KEYID HEXKEY` lines: one per stage and the ledger operator.
        public var stageKeys: String
        /// The app-state service's token key, hex (only when it runs).
        public var appKey: String?

        public init(sourceKeys: String, bindingKey: String, stageKeys: String, appKey: String? = nil) {
            self.sourceKeys = sourceKeys
            self.bindingKey = bindingKey
            self.stageKeys = stageKeys
            self.appKey = appKey
        }
    }

    /// The workers the pipeline is made of.
    public static let stageWorkers = ["resolve", "confirm", "payments", "handle"]

    /// Where the `intent-*` executables are.
    public let binaries: URL
    /// What every worker gets.
    public let environment: [String: String]
    /// Where the key files are.
    public let directory: URL

    /// Writes the key files into `directory` (0600) and builds the environment
    /// every worker gets. `groupSuffix` gives each worker type a consumer group
    /// of its own (`INTENT_RESOLVE_GROUP=resolve-<suffix>`, ...), so runs that
    /// share a broker never share a group.
    public init(
        binaries: URL, directory: URL, bootstrapServers: String, topicPrefix: String, keys: Keys,
        groupSuffix: String? = nil, environment extra: [String: String] = [:]
    ) throws {
        self.binaries = binaries
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func write(_ text: String, _ name: String) throws -> String {
            let file = directory.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            return file.path
        }
        var environment = [
            "KAFKA_BOOTSTRAP_SERVERS": bootstrapServers, "KAFKA_SESSION_TIMEOUT_MS": "6000",
            "INTENT_TOPIC_PREFIX": topicPrefix, "LOG_LEVEL": "info",
            "INTENT_SOURCE_KEYS_FILE": try write(keys.sourceKeys, "source-keys"),
            "INTENT_BINDING_KEY_FILE": try write(keys.bindingKey, "binding-key"),
            "INTENT_STAGE_KEYS_FILE": try write(keys.stageKeys, "stage-keys"),
        ]
        if let appKey = keys.appKey { environment["INTENT_APP_KEY_FILE"] = try write(appKey, "app-key") }
        // The app state holds the writers' view keys alone (ViewKey), never a key the workers trust.
        let viewKeys = (keys.stageKeys + "\n" + keys.sourceKeys).split(separator: "\n").filter {
            $0.hasPrefix(ViewKey.prefix + "/")
        }
        environment["INTENT_VIEW_KEYS_FILE"] = try write(viewKeys.map { $0 + "\n" }.joined(), "view-keys")
        if let groupSuffix {
            for worker in Self.stageWorkers + ["appstate"] {
                environment["INTENT_\(worker.uppercased())_GROUP"] = "\(worker)-\(groupSuffix)"
            }
        }
        self.environment = environment.merging(extra) { $1 }
    }

    /// Starts `intent-<worker>` with the shared environment plus `extraEnvironment`.
    public func launch(
        _ worker: String, arguments: [String] = [], logFile: URL, extraEnvironment: [String: String] = [:]
    ) throws -> ManagedProcess {
        let executable = binaries.appendingPathComponent("intent-\(worker)").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw LocalBrokerError.binaryNotFound(
                name: "intent-\(worker)", searched: [executable],
                hint: "Build every product first (`swift build`, which `make demo` and `make test` do).")
        }
        return try ManagedProcess(
            name: "intent-\(worker)", executable: executable, arguments: arguments,
            environment: environment.merging(extraEnvironment) { $1 }, logFile: logFile)
    }

    /// The directory of the running executable or test bundle that holds the
    /// workers (`INTENT_BIN_DIR` wins): they are built next to each other.
    public static func binaries(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let directory = environment["INTENT_BIN_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL]
        return candidates.compactMap { $0 }.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("intent-resolve").path)
        } ?? Bundle.main.bundleURL
    }
}
