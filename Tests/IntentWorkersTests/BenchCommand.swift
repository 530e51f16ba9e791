import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTestSupport
import Testing

/// An `intent-bench` subcommand of this build, run as its own process (it starts its own
/// local broker): it must exit 0 and end with a JSON line, decoded as `Report`.
enum BenchCommand {
    static func run<Report: Decodable>(
        _ arguments: [String], as _: Report.Type, timeout: Duration
    ) async throws -> Report {
        let output = testFileURL(uniqueName("bench"))
        defer { ManagedProcess.removeOutput(of: output) }
        let bench = WorkerProcesses.binaries.appendingPathComponent("intent-bench").path
        let (status, printed) = try await runProcess(
            name: "intent-bench", executable: bench, arguments: arguments, outputFile: output, timeout: timeout)
        #expect(
            status == 0, "intent-bench \(arguments.joined(separator: " ")) exited \(status):\n\(printed.suffix(4000))")
        let line = printed.split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
        return try #require(
            try? JSONDecoder().decode(Report.self, from: Data(line.utf8)),
            "no JSON last line in:\n\(printed.suffix(4000))")
    }
}
