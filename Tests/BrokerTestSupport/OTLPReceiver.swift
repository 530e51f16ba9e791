public import Foundation
import LocalBroker

/// A stand-in OpenTelemetry collector (scripts/otlp_receiver.py) on a loopback
/// port: what the workers export over OTLP/HTTP, span by span.
public final class OTLPReceiver: Sendable {
    /// One received span: OTLP/JSON's fields, plus the sender's `service.name`.
    public struct Span: Decodable, Sendable, Hashable {
        public struct Attribute: Decodable, Sendable, Hashable {
            public struct Value: Decodable, Sendable, Hashable {
                public var stringValue: String?
                public var intValue: String?
            }
            public var key: String
            public var value: Value
        }
        public var traceId: String
        public var spanId: String
        public var parentSpanId: String?
        public var name: String
        public var kind: Int
        public var startTimeUnixNano: String
        public var endTimeUnixNano: String
        public var attributes: [Attribute]
        public var service: String?

        public func attribute(_ key: String) -> String? {
            attributes.first { $0.key == key }.map { $0.value.stringValue ?? $0.value.intValue ?? "" }
        }
    }

    public let endpoint: URL
    private let process: ManagedProcess
    private let output: URL

    private init(endpoint: URL, process: ManagedProcess, output: URL) {
        self.endpoint = endpoint
        self.process = process
        self.output = output
    }

    /// Starts the receiver and waits until it listens. A Python process: only inside a
    /// slot of the heavy-test gate (``withHeavySlot(_:)`` or ``withBroker(_:_:)``).
    public static func start() async throws -> OTLPReceiver {
        guard HeavyTestGate.shared.isHeldByCurrentTask else {
            throw ReceiverOutsideSlot(
                description: "start the OTLP receiver inside withHeavySlot or withBroker (see HeavyTestGate)")
        }
        let directory = testFileURL(uniqueName("otlp"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let output = directory.appendingPathComponent("spans.jsonl")
        let portFile = directory.appendingPathComponent("port")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/otlp_receiver.py")
        let process = try ManagedProcess(
            name: "otlp_receiver.py", executable: try ToolLocator.python(),
            arguments: [script.path, "--output", output.path, "--port-file", portFile.path],
            logFile: directory.appendingPathComponent("receiver.log"))
        // The receiver writes its port file once it is listening.
        try await waitUntil("the OTLP receiver listens", timeout: .seconds(30)) {
            FileManager.default.fileExists(atPath: portFile.path)
        }
        let port = try String(contentsOf: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return OTLPReceiver(
            endpoint: URL(string: "http://127.0.0.1:\(port)/v1/traces")!, process: process, output: output)
    }

    /// Every span received so far.
    public func spans() throws -> [Span] {
        guard let text = try? String(contentsOf: output, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Span.self, from: Data($0.utf8)) }
    }

    /// Waits until the received spans satisfy `condition`; returns them.
    public func spans(
        until what: String, timeout: Duration = .seconds(60), _ condition: @escaping ([Span]) -> Bool
    ) async throws -> [Span] {
        try await waitUntil(what, timeout: timeout) { condition(try self.spans()) }
        return try spans()
    }

    public func stop() async { await process.stop() }

    /// ``start()`` called outside a heavy-test slot.
    public struct ReceiverOutsideSlot: Error, CustomStringConvertible {
        public var description: String
    }
}
