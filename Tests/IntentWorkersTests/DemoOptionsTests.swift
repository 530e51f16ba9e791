import BrokerTestSupport
import Foundation
import LocalBroker
import Testing

/// `intentctl demo` where an operator wants its pieces: its topics under a
/// prefix, its keys and app state in a directory that is kept, its logs in
/// another, and a transcript that says where each is and which key signs what.
@Suite("intentctl demo --topic-prefix --state-dir --log-dir", .heavyTimeLimit(minutes: 5))
struct DemoOptionsTests {
    @Test("the demo runs with its topics, keys, state and logs where it was told, and says so")
    func demoWhereTold() async throws {
        let base = testFileURL(uniqueName("demo-options"))
        defer { try? FileManager.default.removeItem(at: base) }
        let state = base.appendingPathComponent("state")
        let logs = base.appendingPathComponent("logs")
        let prefix = uniqueName("mydemo") + "."
        let (status, output) = try await runProcess(
            name: "intentctl demo", executable: WorkerLauncher.binaries().appendingPathComponent("intentctl").path,
            arguments: [
                "demo", "--no-keep", "--topic-prefix", prefix, "--state-dir", state.path, "--log-dir", logs.path,
            ],
            outputFile: base.appendingPathComponent("transcript"), timeout: .seconds(240))
        #expect(status == 0, "\(output)")
        #expect(output.contains("▶ topics \(prefix)* created"), "\(output)")
        #expect(output.contains("▶ keys and app state in \(state.path); logs in \(logs.path)"), "\(output)")
        #expect(output.contains("stage-keys: each stage signs what it publishes"))
        // Kept, and readable by nobody else: the workers would refuse them otherwise.
        for key in ["source-keys", "stage-keys", "binding-key", "app-key"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: state.appendingPathComponent(key).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(key)")
        }
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("appstate.sqlite").path))
        let logFiles = try FileManager.default.contentsOfDirectory(atPath: logs.path)
        for worker in ["resolve", "confirm", "payments", "handle", "appstate"] {
            #expect(logFiles.contains("intent-\(worker).log"), "\(logFiles)")
        }
        #expect(logFiles.contains { $0.hasPrefix("tansu") }, "the embedded broker's log: \(logFiles)")
    }
}
