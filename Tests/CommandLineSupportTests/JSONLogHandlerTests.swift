import CommandLineSupport
import Foundation
import Logging
import Testing

/// `LOG_FORMAT=json`: one JSON object per line with the fields a log
/// pipeline indexes, and no way for a logged value to start a line of its own.
@Suite("JSON log lines")
struct JSONLogHandlerTests {
    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(bytes))
        return try #require(parsed as? [String: Any])
    }

    @Test("time, level, worker, message, intent and trace ids, the rest under metadata")
    func fields() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000.25)
        let line = JSONLogHandler.line(
            time: time, level: .warning, worker: "intent-resolve",
            message: "dead-lettered",
            metadata: [
                "intent": "i-1", "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "reason": "schema_invalid", "partitions": ["0", "1"],
            ])
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let object = try Self.object(line)
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(object["time"] as? String == reference.string(from: time))
        #expect(object["level"] as? String == "warning")
        #expect(object["worker"] as? String == "intent-resolve")
        #expect(object["message"] as? String == "dead-lettered")
        #expect(object["intent_id"] as? String == "i-1")
        #expect(object["trace_id"] as? String == "0af7651916cd43dd8448eb211c80319c")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["reason"] as? String == "schema_invalid")
        #expect(metadata["partitions"] as? [String] == ["0", "1"])
        #expect(metadata["intent"] == nil && metadata["traceparent"] == nil)
    }

    @Test("a value with newlines and quotes stays inside its line")
    func hostileValues() throws {
        let forged = "x\"}\n{\"level\":\"critical\",\"message\":\"forged"
        let line = JSONLogHandler.line(
            time: Date(), level: .info, worker: "w", message: forged, metadata: ["error": "\(forged)"])
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let object = try Self.object(line)
        #expect(object["message"] as? String == forged)
        #expect(object["level"] as? String == "info")
    }

    @Test("LOG_FORMAT is text by default, json when asked, and anything else is refused by name")
    func format() throws {
        #expect(try LogFormat.from(environment: [:]) == .text)
        #expect(try LogFormat.from(environment: ["LOG_FORMAT": "JSON"]) == .json)
        #expect(try LogFormat.from(environment: ["LOG_FORMAT": "text"]) == .text)
        let error = #expect(throws: LogFormatError.self) { try LogFormat.from(environment: ["LOG_FORMAT": "xml"]) }
        #expect(error?.description == "LOG_FORMAT must be text or json, not xml")
    }

    @Test("the handler writes what line(...) gives, with the logger's metadata and label")
    func handler() throws {
        let written = Captured()
        var logger = Logger(label: "intent-handle") { JSONLogHandler(label: $0, write: written.append) }
        logger[metadataKey: "group"] = "handle-1"
        logger.info("consuming", metadata: ["topic": "t"])
        let lines = written.lines
        #expect(lines.count == 1)
        let object = try Self.object(try #require(lines.first))
        #expect(object["worker"] as? String == "intent-handle")
        #expect(object["message"] as? String == "consuming")
        #expect((object["metadata"] as? [String: String]) == ["group": "handle-1", "topic": "t"])
    }
}

/// What a handler wrote, line by line.
final class Captured: Sendable {
    private let storage = NSLock()
    nonisolated(unsafe) private var written: [[UInt8]] = []

    var lines: [[UInt8]] { storage.withLock { written } }

    var append: @Sendable ([UInt8]) -> Void {
        { bytes in self.storage.withLock { self.written.append(bytes) } }
    }
}
