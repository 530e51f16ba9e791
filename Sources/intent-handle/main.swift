import CommandLineSupport
import WorkerCommandLine

// The handle worker's command (``IntentHandle``, WorkerCommandLine), run without fault hooks.
// Usage errors exit 64 with the usage; errors while running exit 1 without it (``CommandMain``).
await CommandMain.run(IntentHandle.self)
