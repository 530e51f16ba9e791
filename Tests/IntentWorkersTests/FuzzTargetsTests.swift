import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTestSupport
import Testing

/// The libFuzzer targets (`Fuzz/`, `make fuzz`) are a package of their own, built only in
/// release with `--sanitize fuzzer`, which `make test` does not do: that build takes minutes,
/// and so a renamed parameter broke `fuzz-intent` unseen for four days. Each target is
/// type-checked here against the modules this test build has just made, in under a second.
@Suite("The fuzz targets")
struct FuzzTargetsTests {
    static let root = ToolLocator.projectRoot()

    /// One folder of `Fuzz/Sources` per target.
    static var targets: [String] {
        guard let root else { return [] }
        let sources = root.appendingPathComponent("Fuzz/Sources")
        return ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []).sorted()
    }

    /// The targets `scripts/fuzz.sh` runs (its `TARGETS=(...)` line).
    static func scriptTargets(in root: URL) throws -> [String] {
        let script = try String(contentsOf: root.appendingPathComponent("scripts/fuzz.sh"), encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("TARGETS=(") })
        return line.dropFirst("TARGETS=(".count).prefix { $0 != ")" }.split(separator: " ").map(String.init).sorted()
    }

    @Test("make fuzz runs every target in Fuzz/Sources, and there are some")
    func everyTargetRuns() throws {
        let root = try #require(Self.root, "project root not found")
        let targets = Self.targets
        #expect(targets.contains("fuzz-intent"), "Fuzz/Sources holds \(targets)")
        #expect(try Self.scriptTargets(in: root) == targets)
    }

    @Test("each fuzz target type-checks against the modules just built", arguments: Self.targets)
    func typeChecks(_ target: String) async throws {
        let root = try #require(Self.root, "project root not found")
        let folder = root.appendingPathComponent("Fuzz/Sources/\(target)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") }.sorted().map { folder.appendingPathComponent($0).path }
        try #require(!files.isEmpty, "no Swift files in \(folder.path)")
        // The system-library targets' module maps, which SwiftPM would pass: the modules
        // import them (IntentEvents imports COpenSSL).
        let sources = root.appendingPathComponent("Sources")
        let moduleMaps = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
            .map { sources.appendingPathComponent("\($0)/module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        let modules = WorkerProcesses.binaries.appendingPathComponent("Modules").path
        let arguments =
            ["-typecheck", "-parse-as-library", "-I", modules]
            + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + files
        let output = testFileURL(uniqueName("swiftc"))
        defer { ManagedProcess.removeOutput(of: output) }
        let (status, printed) = try await runProcess(
            name: "swiftc", executable: try ToolLocator.executable(named: "swiftc"), arguments: arguments,
            outputFile: output, timeout: .seconds(120))
        #expect(status == 0, "swiftc \(arguments.joined(separator: " ")) exited \(status):\n\(printed)")
    }
}
