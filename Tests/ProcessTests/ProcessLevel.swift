import BrokerTestSupport
import Testing

/// The process-level tests issue 29's point 5 names: every executable end to end, the
/// manifests started as deployed, graceful shutdown under load, a broker outage, TLS,
/// consumer groups and the outside Python client. What they check needs real processes,
/// sockets and a real broker, so the simulation cannot take them over.
///
/// They run one at a time (`.serialized`, which applies to every suite nested in this one)
/// in their own lane beside ``HeavyTestGate`` (``Testing/Trait/serialProcessLane``): the
/// chain starts with the run and never competes with itself, while the other targets'
/// tests run in parallel beside it in the same `swift test` run. Without competition a
/// group member holds a short session (``GroupSession/serialLane``), most of their time.
/// Two other process tests stay at the gate, where long tests start first, because the
/// chain is the run's critical path: the process kill of `CrashRecoveryTests` (30-40 s) and
/// `intentctl demo` (13 s). docs/test-suite-time.md has the measurements.
@Suite("Process-level tests, one at a time", .serialized, .serialProcessLane)
struct ProcessLevel {}
