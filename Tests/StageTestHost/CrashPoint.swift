import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fault injection for the crash test: a worker run by the fault host with
/// `INTENT_CRASH_BETWEEN_ROUNDS=N` dies, as abruptly as under SIGKILL (no
/// flush, no commit), right after the Nth time it made state durable and
/// before it published the notices that report it: the one moment where a
/// redo must produce exactly what the first attempt already made durable.
/// A moment no signal from outside can hit, hence a hook inside the host.
struct CrashPoint: Sendable {
    static let variable = "INTENT_CRASH_BETWEEN_ROUNDS"
    private let crash: FaultSwitch

    init(environment: [String: String]) { crash = FaultSwitch(Self.variable, environment: environment) }

    /// Called between the state round and the notices round of one publish.
    func betweenPublishRounds() {
        guard let (after, count) = crash.reach(), count > after else { return }
        FileHandle.standardError.write(
            Data("crash point: exiting between publish rounds (round \(count - 1))\n".utf8))
        _exit(137)
    }
}
