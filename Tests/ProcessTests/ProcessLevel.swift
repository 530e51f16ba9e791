import BrokerTestSupport
import Testing

/// The process-level tests (issue 29, point 5): every executable end to end, the manifests
/// started as deployed, graceful shutdown and a process kill under load, a broker outage,
/// TLS, consumer groups, the outside Python client and `intentctl demo`. What they check
/// needs real processes, sockets and a real broker, so the simulation cannot take them over.
///
/// They run one at a time (`.serialized`, which applies to every suite nested in this one)
/// in their own lane beside ``HeavyTestGate`` (``Testing/Trait/serialProcessLane``): the
/// chain starts with the run and never competes with itself, while the other targets'
/// tests run in parallel beside it in the same `swift test` run. Without competition a
/// group member holds a short session (``groupSession``), which is most of their time.
/// docs/test-suite-time.md has the chain's measured time.
@Suite("Process-level tests, one at a time", .serialized, .serialProcessLane)
struct ProcessLevel {}
