public import CoreMetrics

/// Where a worker reports its health and metrics. Installed once per process
/// by the executable (``WorkerHealth`` behind `/health` and `/ready`, a
/// Prometheus registry behind `/metrics`) and read by the worker loop through
/// ``current``, so the stages' configurations do not carry it and tests can
/// give each worker its own registry.
///
/// Instrumentation, not configuration: nothing a worker decides, publishes,
/// commits or retries depends on it (policies such as ``Kafka/RetryPolicy`` are
/// initializer arguments). It only says where observations go, which is why it
/// travels with the task like swift-distributed-tracing's `ServiceContext` and
/// swift-log's metadata: a worker run without it behaves the same, unobserved.
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

    /// The process's telemetry; the default discards metrics and is never asked about health.
    /// A task-local (see the type's comment: instrumentation, not configuration).
    @TaskLocal public static var current = Telemetry(metrics: NOOPMetricsHandler.instance)
}
