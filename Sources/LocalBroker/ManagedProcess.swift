public import Foundation
import Synchronization

/// A child process with its output in a log file, that is killed when this
/// process exits normally, so a test run never leaves brokers behind.
public final class ManagedProcess: Sendable {
    public let name: String
    public let logFile: URL
    public let pid: Int32
    /// Whether this process should outlive the one that started it (`intentctl broker start`).
    private let detached: Bool

    private let exitWatch = ProcessExit()

    /// - Parameter errorLogFile: Where standard error goes; `logFile` when nil.
    public init(
        name: String, executable: String, arguments: [String], environment: [String: String] = [:],
        logFile: URL, errorLogFile: URL? = nil, detached: Bool = false
    ) throws {
        self.name = name
        self.logFile = logFile
        self.detached = detached
        try FileManager.default.createDirectory(
            at: logFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        let log = try Self.truncatedForWriting(logFile)
        let errorLog = try errorLogFile.map(Self.truncatedForWriting) ?? log
        defer {
            try? log.close()
            if errorLog !== log { try? errorLog.close() }
        }
        pid = try ProcessSpawn.spawn(
            executable: executable, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardOutput: log.fileDescriptor, standardError: errorLog.fileDescriptor)
        exitWatch.watch(pid)
        if !detached { ChildRegistry.shared.add(pid) }
    }

    public var isRunning: Bool { exitWatch.status == nil }
    /// The exit status (the signal number if a signal ended it), or -1 while it runs.
    public var exitStatus: Int32 { exitWatch.status ?? -1 }

    /// Returns the exit status once the process has exited.
    @discardableResult
    public func waitForExit() async -> Int32 {
        let status = await exitWatch.wait()
        ChildRegistry.shared.remove(pid)
        return status
    }

    /// SIGKILL, then wait for exit: what a crash looks like to clients.
    public func kill() async {
        if isRunning { Foundation.kill(pid, SIGKILL) }
        await waitForExit()
    }

    /// SIGSTOP: the process is frozen with its sockets open, as a hung machine looks to its
    /// clients (requests time out instead of being refused). ``resume()`` continues it.
    public func suspend() {
        if isRunning { Foundation.kill(pid, SIGSTOP) }
    }

    /// SIGCONT after ``suspend()``.
    public func resume() {
        if isRunning { Foundation.kill(pid, SIGCONT) }
    }

    /// SIGTERM and wait for exit, escalating to SIGKILL after `grace`.
    public func stop(grace: Duration = .seconds(5)) async {
        guard isRunning else { return }
        Foundation.kill(pid, SIGTERM)
        await waitForExit(within: grace)
    }

    /// Waits up to `timeout` for the process to exit by itself, then kills it.
    /// Returns the exit status, or nil when it had to be killed.
    @discardableResult
    public func waitForExit(within timeout: Duration) async -> Int32? {
        await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await self.waitForExit() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            if first == nil, isRunning { Foundation.kill(pid, SIGKILL) }
            group.cancelAll()
            return first
        }
    }

    /// Runs a command to completion and returns its exit status and
    /// standard output; standard error goes to ``errorFile(of:)``.
    /// Output goes through a file, not a pipe: Foundation's pipe reads are a
    /// `try!` that traps when a read is interrupted.
    public static func run(
        name: String, executable: String, arguments: [String], outputFile: URL, timeout: Duration
    ) async throws -> (status: Int32, output: String) {
        let process = try ManagedProcess(
            name: name, executable: executable, arguments: arguments, logFile: outputFile,
            errorLogFile: errorFile(of: outputFile))
        guard let status = await process.waitForExit(within: timeout) else {
            throw LocalBrokerError.timedOut(name: name, after: timeout)
        }
        return (status, try String(contentsOf: outputFile, encoding: .utf8))
    }

    /// Where ``run(name:executable:arguments:outputFile:timeout:)`` writes standard error.
    public static func errorFile(of outputFile: URL) -> URL {
        outputFile.appendingPathExtension("stderr")
    }

    /// Removes what ``run(name:executable:arguments:outputFile:timeout:)`` wrote: the output
    /// file and the standard error beside it.
    public static func removeOutput(of outputFile: URL) {
        try? FileManager.default.removeItem(at: outputFile)
        try? FileManager.default.removeItem(at: errorFile(of: outputFile))
    }

    private static func truncatedForWriting(_ file: URL) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        return try FileHandle(forWritingTo: file)
    }

    /// The last lines of the process's log, for error messages.
    public func logTail(lines: Int = 20) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    deinit {
        if !detached, isRunning {
            Foundation.kill(pid, SIGKILL)
            ChildRegistry.shared.remove(pid)
        }
    }
}

/// Child processes to kill at exit. Swift Testing and command-line tools exit
/// through `exit()`, which runs `atexit` handlers, but not deinitializers.
final class ChildRegistry: Sendable {
    static let shared = ChildRegistry()
    private let pids = Mutex<Set<Int32>>([])

    private init() {
        atexit {
            for pid in ChildRegistry.shared.pids.withLock({ $0 }) {
                kill(pid, SIGKILL)
            }
        }
    }

    func add(_ pid: Int32) { pids.withLock { _ = $0.insert(pid) } }
    func remove(_ pid: Int32) { pids.withLock { _ = $0.remove(pid) } }
}
