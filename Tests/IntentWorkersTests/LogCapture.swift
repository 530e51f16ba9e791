import BrokerTestSupport
import Logging
import Synchronization

/// A logger that also keeps every message, so a test can await a line the
/// code under test logs (there is no other event to wait for when a publish fails).
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "capture") { label in
            MultiplexLogHandler([StreamLogHandler.standardError(label: label), CapturingHandler(capture: self)])
        }
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Whether a line logged so far contains `text`.
    func contains(_ text: String) -> Bool {
        lines.withLock { $0.contains { $0.contains(text) } }
    }

    func waitFor(_ text: String, timeout: Duration) async throws {
        try await waitUntil("a log line with \"\(text)\"", timeout: timeout) {
            lines.withLock { $0.contains { $0.contains(text) } }
        }
    }

    private struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.message) \(event.metadata ?? [:])")
        }
    }
}
