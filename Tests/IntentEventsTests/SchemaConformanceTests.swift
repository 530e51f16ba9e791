import BrokerTestSupport
import Foundation
import IntentEvents
import LocalBroker
import Testing

/// The checkout root, from this file's location (Tests/IntentEventsTests/...).
let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct SchemaCheck {
    struct Line: Decodable {
        var kind: String
        var file: String?
        var ok: Bool?
        var errors: [String]?
        var failures: Int?
    }

    var status: Int32
    var lines: [Line]

    /// Runs scripts/check_schemas.py (jsonschema, draft 2020-12) over schemas/ and the given events.
    static func run(events: [EventEnvelope], extraEvents: [[UInt8]] = []) async throws -> SchemaCheck {
        let directory = testFileURL(
            "schema-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = [
            projectRoot.appendingPathComponent("scripts/check_schemas.py").path,
            projectRoot.appendingPathComponent("schemas").path,
        ]
        for (index, bytes) in (events.map { $0.encoded() } + extraEvents).enumerated() {
            let file = directory.appendingPathComponent("event-\(index).json")
            try Data(bytes).write(to: file)
            arguments += ["--event", file.path]
        }
        let (status, output) = try await runProcess(
            name: "schema check", executable: try ToolLocator.python(), arguments: arguments,
            outputFile: directory.appendingPathComponent("report.jsonl"), timeout: .seconds(120))
        let lines = try output.split(separator: "\n").map {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
        return SchemaCheck(status: status, lines: lines)
    }
}

@Suite("Schemas and code agree")
struct SchemaConformanceTests {
    @Test("every schema is a valid draft 2020-12 schema, and events the code encodes validate against them")
    func encodedEventsValidate() async throws {
        let events = [
            sampleEnvelope(),
            EventEnvelope(
                id: EventID.derived("a"), source: "/intentctl", type: SmokePing.type, time: Date(),
                dataSchema: SmokePing.dataSchema, userID: "user-2", conversationID: "c",
                data: .object(["sequence": .integer(0), "message": .string("Юлия Щукина")])),
        ]
        let check = try await SchemaCheck.run(events: events)
        let schemaLines = check.lines.filter { $0.kind == "schema" }
        #expect(schemaLines.count >= 2)
        #expect(schemaLines.allSatisfy { $0.ok == true }, "\(schemaLines.filter { $0.ok != true })")
        let eventLines = check.lines.filter { $0.kind == "event" }
        #expect(eventLines.count == events.count)
        #expect(eventLines.allSatisfy { $0.ok == true }, "\(eventLines.compactMap(\.errors))")
        #expect(check.status == 0)
    }

    @Test("the schemas reject what the decoder rejects (the check can fail)")
    func invalidEventsFail() async throws {
        var withoutUser = validObject()
        withoutUser["userid"] = nil
        var badPayload = validObject()
        badPayload["dataschema"] = SmokePing.dataSchema
        badPayload["data"] = ["sequence": -1, "message": "x"]
        let check = try await SchemaCheck.run(events: [], extraEvents: [json(withoutUser), json(badPayload)])
        let eventLines = check.lines.filter { $0.kind == "event" }
        #expect(eventLines.count == 2)
        #expect(eventLines.allSatisfy { $0.ok == false })
        #expect(eventLines[0].errors?.contains { $0.contains("userid") } == true)
        #expect(eventLines[1].errors?.contains { $0.contains("sequence") } == true)
        #expect(check.status == 1)
    }
}
