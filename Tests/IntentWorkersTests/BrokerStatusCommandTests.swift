import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTestSupport
import Testing

/// `intentctl broker status --json`, as an operator's script reads it: the
/// same facts as the text, one JSON object, and the same exit status.
@Suite("intentctl broker status --json", .heavyTimeLimit(minutes: 2))
struct BrokerStatusCommandTests {
    @Test("running: the address start printed, its process, exit 0; stopped: running false, exit 3")
    func statusAsJSON() async throws {
        // One slot for the whole test: the broker `broker start` leaves running is heavy between the commands too.
        try await withHeavySlot {
            let directory = testFileURL(uniqueName("broker-status"))
            defer { try? FileManager.default.removeItem(at: directory) }
            let intentctl = WorkerProcesses.binaries.appendingPathComponent("intentctl").path
            func run(_ arguments: String...) async throws -> (status: Int32, output: String) {
                try await runProcess(
                    name: "intentctl", executable: intentctl,
                    arguments: arguments + ["--state-dir", directory.appendingPathComponent("state").path],
                    outputFile: directory.appendingPathComponent(uniqueName("output")), timeout: .seconds(60))
            }
            func json(_ text: String) throws -> [String: Any] {
                try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
            }

            let started = try await run("broker", "start")
            #expect(started.status == 0, "\(started.output)")
            let bootstrap = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
            // The broker outlives this process (it is detached): stop it whatever the checks find.
            let running: (status: Int32, output: String)
            do {
                running = try await run("broker", "status", "--json")
            } catch {
                _ = try? await run("broker", "stop")
                throw error
            }
            let stopped = try await run("broker", "stop")
            #expect(stopped.status == 0, "\(stopped.output)")
            let status = try json(running.output)
            #expect(running.status == 0)
            #expect(status["running"] as? Bool == true)
            #expect(status["bootstrapServers"] as? String == bootstrap)
            #expect(status["storage"] as? String == "memory")
            let processes = status["processes"] as? [[String: Any]] ?? []
            #expect(processes.count == 1 && processes.allSatisfy { $0["running"] as? Bool == true }, "\(processes)")
            let after = try await run("broker", "status", "--json")
            #expect(after.status == 3)
            #expect(try json(after.output)["running"] as? Bool == false)
        }
    }
}
