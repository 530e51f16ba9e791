public import Foundation

/// What `intentctl broker start` left running, so `stop` and `status` can
/// find it from another process, and every command's default bootstrap
/// address. Kept as JSON in the state directory. Apart from the broker
/// harness (`LocalBroker`), so production executables can read the record
/// without linking the harness.
public struct BrokerState: Codable, Sendable, Hashable {
    public struct Child: Codable, Sendable, Hashable {
        public init(name: String, pid: Int32, commandMarker: String) {
            self.name = name
            self.pid = pid
            self.commandMarker = commandMarker
        }

        public var name: String
        public var pid: Int32
        /// A word the process's command line must contain, so a recycled pid is never signalled.
        public var commandMarker: String
    }

    public var bootstrapServers: String
    public var port: Int
    public var durable: Bool
    public var s3Endpoint: String?
    public var logDirectory: String
    public var startedAt: Date
    public var children: [Child]

    public static func file(in directory: URL) -> URL {
        directory.appendingPathComponent("broker.json")
    }

    public init(
        bootstrapServers: String, port: Int, durable: Bool, s3Endpoint: String?, logDirectory: String,
        startedAt: Date = Date(), children: [Child]
    ) {
        self.bootstrapServers = bootstrapServers
        self.port = port
        self.durable = durable
        self.s3Endpoint = s3Endpoint
        self.logDirectory = logDirectory
        self.startedAt = startedAt
        self.children = children
    }

    public func save(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: Self.file(in: directory), options: .atomic)
    }

    public static func load(from directory: URL) throws -> BrokerState? {
        let file = file(in: directory)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(BrokerState.self, from: Data(contentsOf: file))
    }

    /// Children that are still alive (and still the processes that were started).
    public var runningChildren: [Child] {
        children.filter { Self.isRunning($0) }
    }

    static func isRunning(_ child: Child) -> Bool {
        guard kill(child.pid, 0) == 0 else { return false }
        let commandLine = (try? String(contentsOfFile: "/proc/\(child.pid)/cmdline", encoding: .utf8)) ?? ""
        return commandLine.contains(child.commandMarker)
    }

    /// SIGTERM every recorded child, SIGKILL what is left after `grace`, and
    /// remove the state file. Returns the names of the processes stopped.
    @discardableResult
    public func stop(stateDirectory: URL, grace: Duration = .seconds(5)) async -> [String] {
        let running = runningChildren
        for child in running { kill(child.pid, SIGTERM) }
        let deadline = ContinuousClock.now + grace
        while running.contains(where: Self.isRunning), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for child in running where Self.isRunning(child) { kill(child.pid, SIGKILL) }
        try? FileManager.default.removeItem(at: Self.file(in: stateDirectory))
        return running.map(\.name)
    }
}
