import OperationsEndpoint
public import Telemetry

/// A worker process's observers, from the operations flags: the telemetry its
/// configuration takes (so the worker reports by argument, not through a
/// task-local), and the services that serve it, run beside the worker by
/// ``WorkerOptions/run(_:observedBy:needs:client:logger:)``.
public struct WorkerObservation: Sendable {
    /// What the worker reports to; ``Telemetry/unobserved`` without `--http-port` and `--otlp-endpoint`.
    public internal(set) var telemetry: Telemetry = .unobserved
    /// `/health`, `/ready` and `/metrics`, when `--http-port` asks for them.
    var endpoint: OperationsServer?
    /// The span exporter, when an OTLP endpoint is configured.
    var tracer: OTLPTracer?

    /// Nothing observed: a worker run without operations flags.
    public init() {}
}
