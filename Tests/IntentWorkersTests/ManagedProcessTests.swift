import BrokerTestSupport
import Foundation
import LocalBroker
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Children are started with `posix_spawn` (``ManagedProcess``), not Foundation's
/// `Process`, whose Linux `run()` crashed the suite: what `Process` gave them must hold.
@Suite("Child processes", .timeLimit(.minutes(1)))
struct ManagedProcessTests {
    func output(_ command: String) async throws -> (status: Int32, output: String) {
        let log = testFileURL("child-\(UUID()).log")
        defer { ManagedProcess.removeOutput(of: log) }
        return try await ManagedProcess.run(
            name: "sh", executable: "/bin/sh", arguments: ["-c", command], outputFile: log, timeout: .seconds(30))
    }

    @Test("a child inherits none of this process's descriptors, only standard input, output and error")
    func descriptorsClosed() async throws {
        // A descriptor without close-on-exec, as libraries sometimes leave them.
        let inherited = open("/dev/null", O_RDONLY)
        try #require(inherited > 2)
        defer { close(inherited) }
        // The shell's descriptors, as `ls` (a process of its own) lists them.
        let (status, listing) = try await output("ls /proc/$$/fd")
        #expect(status == 0)
        let open = Set(listing.split(separator: "\n").compactMap { Int32($0) })
        #expect(!open.contains(inherited), "\(open)")
        #expect(open == [0, 1, 2], "\(listing)")
    }

    @Test("exit codes are reported as Process reported them, and the output is in the log")
    func statuses() async throws {
        #expect(try await output("echo hello; exit 7") == (7, "hello\n"))
    }

    @Test("a child runs in its own process group, a signal's number is its status, a missing executable is an error")
    func groupSignalsAndMissing() async throws {
        let log = testFileURL("child-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let child = try ManagedProcess(name: "sleep", executable: "/bin/sleep", arguments: ["30"], logFile: log)
        #expect(getpgid(child.pid) == child.pid)
        await child.stop()
        #expect(child.exitStatus == SIGTERM)
        let other = try ManagedProcess(name: "sleep", executable: "/bin/sleep", arguments: ["30"], logFile: log)
        await other.kill()
        #expect(other.exitStatus == SIGKILL)
        #expect(throws: (any Error).self) {
            try ManagedProcess(name: "missing", executable: "/nonexistent/tool", arguments: [], logFile: log)
        }
    }
}
