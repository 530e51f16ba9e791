import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTestSupport
import Testing

/// A worker executable with `LOG_FORMAT=json`, as a deployment would run it:
/// every line it writes is one JSON object; a value it does not know stops
/// it at start with an error that names the variable.
@Suite("Worker log format", .heavyTimeLimit(minutes: 3))
struct WorkerLogFormatTests {
    @Test("LOG_FORMAT=json: one JSON object per line with time, level, worker and message; LOG_FORMAT=xml refused")
    func jsonLines() async throws {
        try await withPipeline { pipeline in
            let workers = try WorkerProcesses(
                broker: pipeline.broker, topics: pipeline.topics, workers: ["handle"],
                extraEnvironment: ["LOG_FORMAT": "json"])
            let log = workers.directory.appendingPathComponent("handle-1.log")
            // Awaiting what the worker writes when it is ready, with a deadline.
            let deadline = ContinuousClock.now + .seconds(60)
            var text = ""
            while !text.contains("consuming"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            }
            await workers.stopAll()
            text = try String(contentsOf: log, encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(lines.count >= 2, "\(text)")
            for line in lines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["time"] is String, "\(line)")
                #expect(object?["level"] is String, "\(line)")
                #expect(object?["worker"] as? String == "intent-handle", "\(line)")
                #expect(object?["message"] is String, "\(line)")
            }
            #expect(lines.contains { $0.contains(#""message":"handle worker consuming""#) }, "\(text)")

            let refusedLog = workers.directory.appendingPathComponent("handle-xml.log")
            let refused = try workers.launcher.launch(
                "handle", logFile: refusedLog, extraEnvironment: ["LOG_FORMAT": "xml"])
            let status = await refused.waitForExit()
            #expect(status != 0)
            #expect(
                try String(contentsOf: refusedLog, encoding: .utf8).contains("LOG_FORMAT must be text or json, not xml")
            )
        }
    }
}
