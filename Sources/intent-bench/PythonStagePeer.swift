import Foundation
import LocalBroker

/// The peer each worker is measured against (issue 30, point 3): `scripts/python_stage_peer.py`,
/// a stage as a team would write it in Python with confluent-kafka (parse, verify, decide
/// nothing, encode, sign, produce), run as its own process over the records the worker just
/// handled, on the same broker. Its rate is its records over its own first-read to
/// last-acknowledgement time.
struct PythonStagePeer {
    struct Result: Decodable {
        var records: Int
        var bad: Int
        var failed: Int
        var per_s: Double
        var cpu_s_per_1000: Double
    }

    static func run(
        input: String, output: String, bootstrap: String, keyFiles: [URL], logDirectory: URL
    ) async throws -> Result {
        guard let script = ToolLocator.projectRoot()?.appendingPathComponent("scripts/python_stage_peer.py") else {
            throw BenchFailure("scripts/python_stage_peer.py not found: run from the intent-pipeline checkout")
        }
        let arguments =
            [script.path, "--bootstrap-servers", bootstrap, "--input", input, "--output", output]
            + keyFiles.flatMap { ["--keys", $0.path] }
        let run = try await ManagedProcess.run(
            name: "python-peer", executable: try ToolLocator.python(), arguments: arguments,
            outputFile: logDirectory.appendingPathComponent("python-peer-\(UUID().uuidString.prefix(8)).log"),
            timeout: .seconds(600))
        guard run.status == 0, let last = run.output.split(separator: "\n").last,
            let result = try? JSONDecoder().decode(Result.self, from: Data(last.utf8))
        else {
            throw BenchFailure("the Python peer failed (exit \(run.status)): \(run.output.suffix(500))")
        }
        guard result.bad == 0, result.failed == 0 else {
            throw BenchFailure("the Python peer refused \(result.bad) and failed to publish \(result.failed) records")
        }
        return result
    }
}
