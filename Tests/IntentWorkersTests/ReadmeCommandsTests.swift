import BrokerTestSupport
import Foundation
import Testing

/// The shell commands of the README and the docs work as written (issue 31, point 2):
/// every `sh` block says, in the comment right above it, whether this suite runs it or why
/// it cannot; the ones it runs are run through bash, in the checkout, one document at a
/// time and one command after another as a newcomer would type them, and must all succeed.
@Suite("README and docs commands", .heavyTimeLimit(minutes: 6))
struct ReadmeCommandsTests {
    static let root = DeployManifestTests.root
    static let runMarker = "<!-- readme-commands: run by ReadmeCommandsTests -->"
    static let skipPrefix = "<!-- readme-commands: not run by ReadmeCommandsTests: "

    /// A fenced `sh` block and the marker line above it.
    struct Block {
        var marker: String
        var commands: [String]
    }

    /// The `sh` blocks of a Markdown text, each with the last non-empty line before its fence.
    static func blocks(of markdown: String) -> [Block] {
        var blocks: [Block] = []
        var previous = ""
        var current: Block?
        for line in markdown.components(separatedBy: "\n") {
            if var block = current {
                if line.hasPrefix("```") {
                    blocks.append(block)
                    current = nil
                } else {
                    block.commands.append(line)
                    current = block
                }
                continue
            }
            if line == "```sh" || line == "```bash" || line == "```shell" {
                current = Block(marker: previous, commands: [])
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                previous = line
            }
        }
        return blocks
    }

    /// Why a block is not run, or nil when it is run; a block with neither marker is a finding.
    static func reasonNotRun(_ block: Block) -> String?? {
        if block.marker == runMarker { return .some(nil) }
        guard block.marker.hasPrefix(skipPrefix), block.marker.hasSuffix("-->") else { return nil }
        let reason = block.marker.dropFirst(skipPrefix.count).dropLast(3).trimmingCharacters(in: .whitespaces)
        return reason.isEmpty ? nil : .some(reason)
    }

    /// The documents whose commands a reader runs: the README, every page of docs/, and
    /// deploy/README.md, by path from the checkout's root.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs + ["deploy/README.md"]
    }

    static func text(of document: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
    }

    @Test("every sh block of the README and the docs is marked: run here, or not run with a reason")
    func everyBlockIsMarked() throws {
        let documents = try Self.documents()
        #expect(documents.count >= 10, "\(documents)")
        var run: [String] = []
        for document in documents {
            let blocks = Self.blocks(of: try Self.text(of: document))
            for block in blocks {
                #expect(
                    Self.reasonNotRun(block) != nil,
                    "a \(document) sh block without a readme-commands marker (or with an empty reason): \(block.commands)"
                )
            }
            if blocks.contains(where: { Self.reasonNotRun($0) == .some(nil) }) { run.append(document) }
        }
        #expect(Set(run) == Set(Self.runnable.map(\.document)), "documents with blocks to run: \(run)")
    }

    /// The documents with blocks this suite runs, and what their output must show.
    static let runnable: [(document: String, shows: [String])] = [
        // The hand-made path ends with the resolved intent: 小明 is alice's contact c-xm.
        ("README.md", ["intent.resolved.v1", "c-xm"]),
        ("docs/contact-resolution.md", [#"{"candidates":["c-xm"],"id":"q1","outcome":"success"}"#]),
        ("docs/kafka.md", ["127.0.0.1:"]),
    ]

    @Test("an unmarked block, or one skipped without a reason, is caught")
    func unmarkedBlocksAreCaught() {
        let text = """
            Some text

            ```sh
            echo unmarked
            ```
            \(Self.skipPrefix) -->
            ```sh
            echo no reason
            ```
            """
        let blocks = Self.blocks(of: text)
        #expect(blocks.count == 2)
        #expect(blocks.allSatisfy { Self.reasonNotRun($0) == nil })
    }

    @Test(
        "the runnable commands of each document succeed, in order, on a fresh state directory",
        arguments: ReadmeCommandsTests.runnable)
    func runnableBlocksSucceed(document: String, shows: [String]) async throws {
        let directory = testFileURL(uniqueName("readme"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let runnable = Self.blocks(of: try Self.text(of: document)).filter { Self.reasonNotRun($0) == .some(nil) }
        #expect(!runnable.isEmpty, "\(document) has no block this suite runs")
        // `swift build` inside `swift test` would wait for the lock this test run holds on
        // .build; the suite runs after `swift build --build-tests`, which built every product.
        let commands = runnable.flatMap(\.commands).filter { !$0.hasPrefix("swift build") }
        let script = """
            set -euo pipefail
            cd '\(Self.root.path)'
            export INTENT_STATE_DIR='\(directory.appendingPathComponent("state").path)'
            # The commands' own temporary files (`mktemp -d`, the broker's log) go with this directory.
            export TMPDIR='\(directory.path)'
            # Whatever fails, the broker and the workers the commands started are stopped.
            trap 'kill $(jobs -p) 2>/dev/null || true; .build/debug/intentctl broker stop >/dev/null 2>&1 || true' EXIT
            \(commands.joined(separator: "\n"))
            """
        let file = directory.appendingPathComponent("commands.sh")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let (status, output) = try await runProcess(
            name: "\(document) commands", executable: "/bin/bash", arguments: [file.path],
            outputFile: directory.appendingPathComponent("output"), timeout: .seconds(180))
        #expect(status == 0, "\(output)")
        for expected in shows { #expect(output.contains(expected), "\(document): no \(expected) in \(output)") }
    }
}
