import CommandLineSupport
import WorkerCommandLine

// The resolve worker's command (``IntentResolve``, WorkerCommandLine), run without fault hooks.
// Usage errors exit 64 with the usage; errors while running exit 1 without it (``CommandMain``).
await CommandMain.run(IntentResolve.self)
