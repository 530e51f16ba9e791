import CoreMetrics
import Metrics
public import Prometheus

/// The process's Prometheus registry and the swift-metrics factory writing to
/// it, with histogram buckets that fit what the pipeline measures (a batch
/// decided in well under a millisecond, a hop in milliseconds to seconds)
/// rather than the library's web-request defaults.
public struct OperationsMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["intent_batch_processing_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ]
        factory.durationHistogramBuckets["intent_hop_latency_seconds"] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
    }

    /// The Prometheus text exposition (format 0.0.4) of everything recorded so far.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }

    /// The process's registry, installed as swift-metrics' backend on first use
    /// (swift-metrics allows one bootstrap per process).
    public static let process: OperationsMetrics = {
        let metrics = OperationsMetrics()
        MetricsSystem.bootstrap(metrics.factory)
        return metrics
    }()

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
