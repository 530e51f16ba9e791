import CommandLineSupport
import Foundation
import StageTestHost
import WorkerCommandLine

// `intent-fault-host WORKER [ARGUMENTS]`: the stage worker's own command line (the same
// options, environment and worker as `intent-WORKER`), run with the faults the
// environment asks for (``EnvironmentFaults``: INTENT_CRASH_BETWEEN_ROUNDS,
// INTENT_STALL_BEFORE_LEDGER_POST). Built for the process-level crash and fencing
// tests only: no product, image or deployment contains it, so no production
// executable reads those variables.
let arguments = Array(CommandLine.arguments.dropFirst())
let hooks = EnvironmentFaults(environment: ProcessInfo.processInfo.environment)

/// Runs `command` from the arguments after the worker's name, with the hooks.
func host<Command: WorkerCommand>(_ command: Command.Type) async -> Never {
    await CommandMain.run(command, arguments: Array(arguments.dropFirst())) { try await $0.run(hooks: hooks) }
}

switch arguments.first {
case "resolve": await host(IntentResolve.self)
case "confirm": await host(IntentConfirm.self)
case "payments": await host(IntentPayments.self)
case "handle": await host(IntentHandle.self)
default:
    FileHandle.standardError.write(Data("usage: intent-fault-host resolve|confirm|payments|handle [ARGUMENTS]\n".utf8))
    exit(64)
}
