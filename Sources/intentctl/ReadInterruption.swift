import Foundation
import Synchronization

/// Set by the SIGINT and SIGTERM handler ``ReadInterruption/install()`` installs: a C
/// signal handler captures nothing, so the flag is global (an atomic store is safe in one).
private let interruptionRequested = Atomic<Bool>(false)

/// Ctrl-C (SIGINT) and SIGTERM as a request to stop reading, not a kill, as kcat takes
/// them: `events read --follow` reads until interrupted, and an operator's Ctrl-C (or
/// an orchestrator's SIGTERM) then ends it like the end of a read: the consumer is
/// closed and the command exits 0, with every record it printed complete.
enum ReadInterruption {
    /// Handles SIGINT and SIGTERM from now on by setting ``requested``.
    static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in interruptionRequested.store(true, ordering: .relaxed) }
        }
    }

    /// Whether SIGINT or SIGTERM came since ``install()``.
    static var requested: Bool { interruptionRequested.load(ordering: .relaxed) }
}
