public import ArgumentParser
import Foundation
public import Telemetry

/// Where a worker serves `/health`, `/ready` and `/metrics`: off unless a port
/// is given, because a process that opens a port nobody asked for surprises
/// whoever runs it beside others on one machine. The manifests set it.
public struct OperationsOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "Serve /health, /ready and /metrics (Prometheus) on this port. Default: $INTENT_HTTP_PORT, else off.",
            valueName: "port"))
    public var httpPort: Int?

    @Option(
        help: ArgumentHelp(
            "The address the endpoints listen on. Default: $INTENT_HTTP_HOST, else 0.0.0.0 (every interface: a pod's probes come from outside it).",
            valueName: "address"))
    public var httpHost: String?

    /// The port, or nil when the endpoints are off.
    public func port() throws -> Int? {
        guard let text = httpPort.map(String.init) ?? ProcessInfo.processInfo.environment["INTENT_HTTP_PORT"] else {
            return nil
        }
        guard let port = Int(text.trimmingCharacters(in: .whitespaces)), (0...65_535).contains(port) else {
            throw ValidationError("Invalid HTTP port \(text): use 1 to 65535 (0 picks a free port).")
        }
        return port
    }

    public var host: String { httpHost ?? ProcessInfo.processInfo.environment["INTENT_HTTP_HOST"] ?? "0.0.0.0" }

    @Option(
        help: ArgumentHelp(
            "Export each hop's trace span (OTLP/HTTP, JSON) to this collector URL, e.g. http://otel-collector:4318/v1/traces. Default: $INTENT_OTLP_ENDPOINT, else OpenTelemetry's $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT (plus /v1/traces), else off (the hops still continue a voice service's traceparent). $OTEL_SERVICE_NAME names the service; $OTEL_SDK_DISABLED=true turns export off.",
            valueName: "url"))
    public var otlpEndpoint: String?

    /// The tracer that exports spans, or nil when no endpoint is configured (``OTLPExportSettings``).
    public func tracer(serviceName: String) throws -> OTLPTracer? {
        let settings: OTLPExportSettings?
        do {
            settings = try OTLPExportSettings.resolve(
                flag: otlpEndpoint, environment: ProcessInfo.processInfo.environment, defaultServiceName: serviceName)
        } catch {
            throw ValidationError(error.description)
        }
        guard let settings else { return nil }
        do {
            return try OTLPTracer(endpoint: settings.endpoint, serviceName: settings.serviceName)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
