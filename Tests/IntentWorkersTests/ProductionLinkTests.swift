import BrokerTestSupport
import Foundation
import LocalBroker
import Testing

/// The production executables do not link the local broker harness
/// (`LocalBroker`: child processes, ports, test helpers), only the record of
/// a broker `intentctl broker start` left running (`LocalBrokerRecord`).
/// Read from the built binaries' symbol tables, so a dependency that creeps
/// back in through any module is caught, not only one in Package.swift.
@Suite("What the production executables link")
struct ProductionLinkTests {
    /// Swift mangles a module name as its length and the name: `11LocalBroker`
    /// is the harness's, and no prefix of `17LocalBrokerRecord`.
    static let harnessSymbol = "11LocalBroker"

    func harnessSymbols(in executable: String) async throws -> Int {
        let path = WorkerProcesses.binaries.appendingPathComponent(executable).path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("nm"))
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, symbols) = try await runProcess(
            name: "nm", executable: try ToolLocator.executable(named: "nm"), arguments: [path], outputFile: output,
            timeout: .seconds(60))
        #expect(status == 0, "nm \(path) exited \(status)")
        return symbols.split(separator: "\n").count { $0.contains(Self.harnessSymbol) }
    }

    @Test(
        "workers and the app-state service do not link LocalBroker",
        arguments: ["intent-resolve", "intent-confirm", "intent-payments", "intent-handle", "intent-appstate"])
    func productionExecutable(_ executable: String) async throws {
        #expect(try await harnessSymbols(in: executable) == 0)
    }

    @Test("intentctl, which runs the demo and `broker start`, does (the check can see it)")
    func intentctlLinksTheHarness() async throws {
        #expect(try await harnessSymbols(in: "intentctl") > 0)
    }
}
