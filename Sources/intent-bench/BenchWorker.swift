import Foundation
import LocalBroker

/// One pipeline worker as production runs it: its own process from the
/// build's executables, configured by the environment. Knows when it is ready
/// (its "consuming" log line) and reads its CPU time and RSS from /proc.
final class BenchWorker: Sendable {
    let name: String
    let process: ManagedProcess
    let launched: ContinuousClock.Instant

    init(name: String, launcher: WorkerLauncher, arguments: [String], logDirectory: URL) throws {
        self.name = name
        launched = ContinuousClock.now
        process = try launcher.launch(
            name, arguments: arguments,
            logFile: logDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(6)).log"))
    }

    /// Waits for the worker's "consuming" line (state loaded, subscribed): the start-up time.
    func ready(timeout: Duration = .seconds(60)) async throws -> Duration {
        try await waitForLog("ready", timeout: timeout) { $0.contains(" consuming") }
    }

    /// Waits until the worker's log satisfies `condition`: the time since launch.
    func waitForLog(_ what: String, timeout: Duration, _ condition: (String) -> Bool) async throws -> Duration {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: process.logFile, encoding: .utf8), condition(text) {
                return ContinuousClock.now - launched
            }
            guard process.isRunning else { throw BenchFailure("\(name) exited: \(process.logTail())") }
            // Polling a log file another process writes: there is no event to await.
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchFailure("\(name) not \(what) after \(timeout): \(process.logTail())")
    }

    /// User plus system CPU seconds so far (/proc/PID/stat, fields 14 and 15).
    var cpuSeconds: Double { Self.cpuSeconds(of: process.pid) }

    /// User plus system CPU seconds of any process so far (the broker's, too).
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident set size in MiB (VmRSS in /proc/PID/status).
    var rssMiB: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kB = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kB / 1024
    }

    func stop() async { await process.stop() }
}

/// A benchmark step that could not complete.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
