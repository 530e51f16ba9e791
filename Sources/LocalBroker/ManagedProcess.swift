public import Foundation
import Synchronization

/// A child process with its output in a log file, that is killed when this
/// process exits normally, so a test run never leaves brokers behind.
public final class ManagedProcess: Sendable {
    public let name: String
    public let logFile: URL
    private let process: Process
    /// Whether this process should outlive the one that started it (`intentctl broker start`).
    private let detached: Bool

    public init(
        name: String, executable: String, arguments: [String], environment: [String: String] = [:],
        logFile: URL, detached: Bool = false
    ) throws {
        self.name = name
        self.logFile = logFile
        self.detached = detached
        try FileManager.default.createDirectory(
            at: logFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? log.close()
        self.process = process
        if !detached { ChildRegistry.shared.add(process.processIdentifier) }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var exitStatus: Int32 { process.isRunning ? -1 : process.terminationStatus }

    /// SIGKILL, then wait for exit: what a crash looks like to clients.
    public func kill() async {
        await signalAndWait(SIGKILL)
    }

    /// SIGTERM and wait for exit, escalating to SIGKILL after `grace`.
    public func stop(grace: Duration = .seconds(5)) async {
        guard process.isRunning else { return }
        Foundation.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        await signalAndWait(SIGKILL)
    }

    private func signalAndWait(_ signal: Int32) async {
        if process.isRunning { Foundation.kill(pid, signal) }
        let process = self.process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // waitUntilExit blocks; keep it off the cooperative thread pool.
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        ChildRegistry.shared.remove(pid)
    }

    /// The last lines of the process's log, for error messages.
    public func logTail(lines: Int = 20) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    deinit {
        if !detached, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            ChildRegistry.shared.remove(process.processIdentifier)
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
