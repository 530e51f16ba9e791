import CommandLineSupport
import WorkerCommandLine

// The payments worker's command (``IntentPayments``, WorkerCommandLine), run without fault hooks.
// Usage errors exit 64 with the usage; errors while running exit 1 without it (``CommandMain``).
await CommandMain.run(IntentPayments.self)
