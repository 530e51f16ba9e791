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

    /// The symbol table of `executable` as `nm` prints it, in a file the caller removes
    /// (`ManagedProcess.removeOutput(of:)`).
    func symbolTable(of executable: String) async throws -> URL {
        let path = WorkerProcesses.binaries.appendingPathComponent(executable).path
        let table = testFileURL(uniqueName("nm"))
        do {
            let (status, _) = try await runProcess(
                name: "nm", executable: try ToolLocator.executable(named: "nm"), arguments: [path], outputFile: table,
                timeout: .seconds(60))
            #expect(status == 0, "nm \(path) exited \(status)")
            return table
        } catch {
            ManagedProcess.removeOutput(of: table)
            throw error
        }
    }

    /// How many symbols of `table` contain `module` (a mangled module name). `grep -c` counts
    /// them: splitting nm's tens of megabytes into lines in this debug-built test took more
    /// CPU than all of nm (docs/test-suite-time.md).
    func symbols(of module: String, in table: URL) async throws -> Int {
        let counted = testFileURL(uniqueName("grep"))
        defer { ManagedProcess.removeOutput(of: counted) }
        let (status, count) = try await runProcess(
            name: "grep", executable: try ToolLocator.executable(named: "grep"),
            arguments: ["-c", "-F", "-e", module, table.path], outputFile: counted, timeout: .seconds(60))
        // grep exits 1 when no line matches, and still prints the count (0).
        #expect(status == 0 || status == 1, "grep exited \(status)")
        return try #require(Int(count.trimmingCharacters(in: .whitespacesAndNewlines)), "grep printed \(count)")
    }

    @Test("workers and the app-state service link neither LocalBroker nor StageTestHost", arguments: Self.production)
    func productionExecutable(_ executable: String) async throws {
        let table = try await symbolTable(of: executable)
        defer { ManagedProcess.removeOutput(of: table) }
        #expect(try await symbols(of: Self.harnessSymbol, in: table) == 0)
        #expect(try await symbols(of: Self.faultSymbol, in: table) == 0)
    }

    /// intentctl runs the demo and `broker start`; intent-fault-host runs the crash and fencing tests' workers.
    @Test(
        "intentctl links LocalBroker and intent-fault-host StageTestHost (the check can see them)",
        arguments: [("intentctl", Self.harnessSymbol), ("intent-fault-host", Self.faultSymbol)])
    func checkSeesTheModule(_ executable: String, module: String) async throws {
        let table = try await symbolTable(of: executable)
        defer { ManagedProcess.removeOutput(of: table) }
        #expect(try await symbols(of: module, in: table) > 0)
    }

    /// Package.swift links tcmalloc on Linux only (`.when(platforms: [.linux])`).
    #if os(Linux)
        static let linksTCMalloc = true
    #else
        static let linksTCMalloc = false
    #endif

    /// The allocator's entry points: memory from one allocator handed to another's `free` (or
    /// sized by its `malloc_usable_size`, as the Swift runtime does) corrupts the heap, so all
    /// must come from one library.
    static let allocatorSymbols = [
        "malloc", "free", "calloc", "realloc", "malloc_usable_size", "posix_memalign", "aligned_alloc", "memalign",
    ]

    /// Which library each allocator call site (``allocatorSymbols``) of `executable` binds to, as the dynamic
    /// linker reports it (`LD_DEBUG=bindings`) while the executable prints its help: one line per
    /// binding, "binding file USER to PROVIDER: normal symbol `malloc'".
    func allocatorBindings(of executable: String) async throws -> [Substring] {
        let path = WorkerProcesses.binaries.appendingPathComponent(executable).path
        let run = testFileURL(uniqueName("ld-debug"))
        let filtered = testFileURL(uniqueName("grep"))
        defer {
            ManagedProcess.removeOutput(of: run)
            ManagedProcess.removeOutput(of: filtered)
        }
        // LD_DEBUG_OUTPUT, if inherited, would send the report to a file instead of standard error.
        let (status, _) = try await runProcess(
            name: executable, executable: try ToolLocator.executable(named: "env"),
            arguments: ["-u", "LD_DEBUG_OUTPUT", "LD_DEBUG=bindings", path, "--help"], outputFile: run,
            timeout: .seconds(60))
        #expect(status == 0, "\(executable) --help exited \(status)")
        // The report is megabytes (every symbol's binding): grep keeps the allocator's lines.
        let (grepStatus, lines) = try await runProcess(
            name: "grep", executable: try ToolLocator.executable(named: "grep"),
            arguments: ["-F"] + Self.allocatorSymbols.flatMap { ["-e", "normal symbol `\($0)'"] } + [
                ManagedProcess.errorFile(of: run).path
            ],
            outputFile: filtered, timeout: .seconds(60))
        #expect(grepStatus == 0, "grep found no allocator binding for \(executable)")
        return lines.split(separator: "\n")
    }

    /// The library a binding line says serves the symbol: what follows the user's "[0] to "
    /// (split there, not at the first " to ", which a path may hold).
    func provider(of binding: Substring) -> Substring? {
        binding.range(of: "] to ").map { binding[$0.upperBound...] }
    }

    /// The payments and handle workers allocate through tcmalloc (Package.swift says why), in
    /// every library of the process: a lost link flag, or a library order that lets libc's
    /// `malloc` win for some library, is caught here rather than as a slower worker.
    @Test(
        "the payments and handle workers' malloc, free and the rest are tcmalloc's, from every library",
        .enabled(if: Self.linksTCMalloc, "tcmalloc is linked on Linux only"),
        arguments: ["intent-payments", "intent-handle"])
    func threadCachingMalloc(_ executable: String) async throws {
        let bindings = try await allocatorBindings(of: executable)
        // Bound lazily, on first call: at least the executable itself, libc, the Swift runtime
        // and Foundation allocate while printing help (10 malloc bindings alone on Debian 12).
        #expect(bindings.count >= 4, "\(bindings)")
        for binding in bindings {
            #expect(provider(of: binding)?.contains("/libtcmalloc_minimal.so.4 ") == true, "\(binding)")
        }
    }

    /// The resolve worker keeps glibc's allocator (it was not faster with tcmalloc, and larger),
    /// so the check above can tell the two apart.
    @Test(
        "the resolve worker's malloc is glibc's (the check can see the difference)",
        .enabled(if: Self.linksTCMalloc, "glibc is the allocator on Linux only"))
    func glibcMalloc() async throws {
        let bindings = try await allocatorBindings(of: "intent-resolve")
        #expect(!bindings.isEmpty)
        for binding in bindings {
            #expect(provider(of: binding)?.contains("/libc.so.6 ") == true, "\(binding)")
        }
    }
}
