import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTestSupport
import Testing

/// The production executables do not link the local broker harness
/// (`LocalBroker`: child processes, ports, test helpers), only the record of
/// a broker `intentctl broker start` left running (`LocalBrokerRecord`), nor
/// the tests' fault injection (`StageTestHost`: crash and stall points, publish
/// faults), which only `intent-fault-host` runs. Read from the built binaries'
/// symbol tables, so a dependency that creeps back in through any module is
/// caught, not only one in Package.swift.
@Suite("What the production executables link")
struct ProductionLinkTests {
    /// Swift mangles a module name as its length and the name: `11LocalBroker`
    /// is the harness's, and no prefix of `17LocalBrokerRecord`.
    static let harnessSymbol = "11LocalBroker"
    /// The fault hooks' module, mangled the same way.
    static let faultSymbol = "13StageTestHost"
    static let production = ["intent-resolve", "intent-confirm", "intent-payments", "intent-handle", "intent-appstate"]

    /// How many symbols of `executable` contain `module` (a mangled module name).
    func symbols(of module: String, in executable: String) async throws -> Int {
        let path = WorkerProcesses.binaries.appendingPathComponent(executable).path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("nm"))
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, symbols) = try await runProcess(
            name: "nm", executable: try ToolLocator.executable(named: "nm"), arguments: [path], outputFile: output,
            timeout: .seconds(60))
        #expect(status == 0, "nm \(path) exited \(status)")
        return symbols.split(separator: "\n").count { $0.contains(module) }
    }

    @Test("workers and the app-state service link neither LocalBroker nor StageTestHost", arguments: Self.production)
    func productionExecutable(_ executable: String) async throws {
        #expect(try await symbols(of: Self.harnessSymbol, in: executable) == 0)
        #expect(try await symbols(of: Self.faultSymbol, in: executable) == 0)
    }

    /// intentctl runs the demo and `broker start`; intent-fault-host runs the crash and fencing tests' workers.
    @Test(
        "intentctl links LocalBroker and intent-fault-host StageTestHost (the check can see them)",
        arguments: [("intentctl", Self.harnessSymbol), ("intent-fault-host", Self.faultSymbol)])
    func checkSeesTheModule(_ executable: String, module: String) async throws {
        #expect(try await symbols(of: module, in: executable) > 0)
    }
}
