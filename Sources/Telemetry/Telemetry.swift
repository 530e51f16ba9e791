public import CoreMetrics

/// Where a worker reports its health and metrics: built once per process by the
/// executable (``WorkerHealth`` behind `/health` and `/ready`, a Prometheus
/// registry behind `/metrics`) and given to each worker as a field of its
/// configuration, like its batching and retry policies, so a test gives each
/// worker its own registry by argument and nothing travels with the task.
///
/// Nothing a worker decides, publishes, commits or retries depends on it: a
/// worker given ``unobserved`` behaves the same, unobserved.
public struct Telemetry: Sendable {
    public var health: WorkerHealth
    public var metrics: any MetricsFactory
    /// librdkafka's `statistics.interval.ms` for the worker's consumer (lag, broker
    /// state); nil leaves statistics off.
    public var statisticsInterval: Duration?
    /// Where each hop's span goes (`--otlp-endpoint`); nil: spans are not
    /// exported, and the hops still write their own ids into `traceparent`.
    public var tracer: OTLPTracer?

    public init(
        health: WorkerHealth = WorkerHealth(), metrics: any MetricsFactory, statisticsInterval: Duration? = nil,
        tracer: OTLPTracer? = nil
    ) {
        self.health = health
        self.metrics = metrics
        self.statisticsInterval = statisticsInterval
        self.tracer = tracer
    }

    /// Discards metrics and spans, and is never asked about health: the default of every
    /// worker's configuration, for workers run without operations endpoints.
    public static var unobserved: Telemetry { Telemetry(metrics: NOOPMetricsHandler.instance) }
}
