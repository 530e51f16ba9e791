public import Foundation

/// What `intentctl broker start` left running, so `stop` and `status` can
/// find it from another process. Kept as JSON in the state directory.
public struct BrokerState: Codable, Sendable, Hashable {
    public struct Child: Codable, Sendable, Hashable {
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

    public init(broker: LocalBroker) {
        bootstrapServers = broker.bootstrapServers
        port = broker.port
        durable = broker.storage != nil
        s3Endpoint = broker.storage?.endpoint
        logDirectory = broker.options.logDirectory.path
        startedAt = Date()
        var children = broker.processes.map {
            Child(name: $0.name, pid: $0.pid, commandMarker: $0.name.contains("socat") ? "socat" : "tansu")
        }
        if let storage = broker.storage {
            children.append(Child(name: storage.process.name, pid: storage.process.pid, commandMarker: "moto"))
        }
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

    public var isAccepting: Bool { Loopback.isAccepting(port: port) }

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
