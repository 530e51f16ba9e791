import BrokerTestSupport
import Foundation
import PipelineTestSupport
import Testing

/// What users of Kafka's own tools expect of every executable (issue 31, point 4):
/// `--version`; a mistake in the arguments exits 64 with the usage, an error while
/// running exits 1 with only the error; nonsense input is refused, never taken.
@Suite("Operator habits of the executables", .heavyTimeLimit(minutes: 4))
struct OperatorHabitsTests {
    static let executables = [
        "intentctl", "intent-resolve", "intent-confirm", "intent-payments", "intent-handle", "intent-appstate",
    ]

    /// Runs an executable of the build through bash, with `environment` exported, output and errors together.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String
    ) {
        let directory = testFileURL(uniqueName("habits"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = WorkerProcesses.binaries.appendingPathComponent(executable).path
        let exports = environment.map { "export \($0.key)='\($0.value)'; " }.joined()
        let command = exports + ([path] + arguments).map { "'\($0)'" }.joined(separator: " ") + " 2>&1"
        return try await runProcess(
            name: executable, executable: "/bin/bash", arguments: ["-c", command],
            outputFile: directory.appendingPathComponent("output"), timeout: .seconds(60))
    }

    @Test("every executable prints the same version for --version and exits 0", arguments: executables)
    func version(_ executable: String) async throws {
        let (status, output) = try await Self.run(executable, ["--version"])
        #expect(status == 0, "\(output)")
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "0.31.0", "\(output)")
    }

    @Test("an error while running exits 1 with the error and without the usage")
    func runtimeError() async throws {
        // No broker reachable and none recorded: the command parsed, and then could not run.
        let (status, output) = try await Self.run(
            "intentctl", ["topics", "list"],
            environment: ["INTENT_STATE_DIR": "/nonexistent/\(uniqueName("state"))", "KAFKA_BOOTSTRAP_SERVERS": ""])
        #expect(status == 1, "\(output)")
        #expect(output.contains("Error: "), "\(output)")
        #expect(!output.contains("Usage:"), "\(output)")
    }

    @Test(
        "nonsense input is refused as a usage error (64, with the usage)",
        arguments: [
            (["topics", "create", "t", "--partitions", "0"], [String: String](), "--partitions must be at least 1"),
            (["topics", "list"], ["LOG_LEVEL": "loud"], "LOG_LEVEL=loud"),
            (["topics", "list", "--log-level", "loud"], [:], "--log-level=loud"),
            (
                ["topics", "provision", "--replication-factor", "1", "--min-insync-replicas", "2"], [:],
                "exceeds --replication-factor 1"
            ),
            (["audit", "--to", "1h"], [:], "--to needs --from"),
            (["settings", "set", "--user", "alice", "--locale", "en US"], [:], "--locale must be a BCP 47 tag"),
            (["keys", "generate", "--source", "voice"], [:], "is not a source"),
        ])
    func refused(_ arguments: [String], _ environment: [String: String], _ reason: String) async throws {
        let (status, output) = try await Self.run("intentctl", arguments, environment: environment)
        #expect(status == 64, "\(output)")
        #expect(output.contains(reason), "\(output)")
        #expect(output.contains("Usage:"), "\(output)")
    }

    @Test(
        "keys generate makes a key for a voice, a contacts and a settings service, and the contacts and settings services' view keys"
    )
    func keysForEverySource() async throws {
        let (status, output) = try await Self.run(
            "intentctl",
            ["keys", "generate", "--source", "/voice/a", "--source", "/contacts/b", "--source", "/settings/c"])
        #expect(status == 0, "\(output)")
        let sources = output.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        // The app state names people by the contacts service's view signature, and puts each
        // user's page in their language by the settings service's (ViewKey); no voice view key.
        #expect(
            Set(sources) == ["/voice/a", "/contacts/b", "/views/contacts/b", "/settings/c", "/views/settings/c"],
            "\(output)")
    }

    @Test("a second broker start prints the running broker's address and exits 0; topics describe shows configuration")
    func brokerStartTwiceAndDescribe() async throws {
        try await withHeavySlot {
            let directory = testFileURL(uniqueName("habits-broker"))
            defer { try? FileManager.default.removeItem(at: directory) }
            let state = ["--state-dir", directory.appendingPathComponent("state").path]
            // The broker `broker start` leaves running is heavy between the commands too: one slot for all.
            func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                try await Self.run("intentctl", arguments)
            }
            let first = try await run(["broker", "start"] + state)
            #expect(first.status == 0, "\(first.output)")
            // Logs go to standard error, mixed in here; the address is the line standard output printed.
            func bootstrap(in output: String) -> String? {
                output.split(separator: "\n").last { $0.hasPrefix("127.0.0.1:") }.map(String.init)
            }
            let address = try #require(bootstrap(in: first.output), "\(first.output)")
            let second: (status: Int32, output: String)
            let described: (status: Int32, output: String)
            do {
                second = try await run(["broker", "start"] + state)
                _ = try await run([
                    "topics", "create", "habits", "--partitions", "1", "--config", "retention.ms=3600000",
                    "--bootstrap-servers", address,
                ])
                described = try await run(["topics", "describe", "habits", "--bootstrap-servers", address])
            } catch {
                _ = try? await run(["broker", "stop"] + state)
                throw error
            }
            _ = try await run(["broker", "stop"] + state)
            #expect(second.status == 0, "\(second.output)")
            #expect(bootstrap(in: second.output) == address, "\(second.output)")
            #expect(described.status == 0, "\(described.output)")
            #expect(described.output.contains("retention.ms=3600000"), "\(described.output)")
        }
    }
}
