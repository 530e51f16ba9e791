public import Foundation

/// Where trace spans go, from the flag, the project's variable, or OpenTelemetry's own
/// environment variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`' `service.name`, `OTEL_SDK_DISABLED`,
/// `OTEL_TRACES_EXPORTER=none`), as an operator who configures every OpenTelemetry SDK the
/// same way expects. The exporter speaks OTLP/HTTP with JSON bodies, which an OpenTelemetry
/// Collector's HTTP receiver takes on the same `/v1/traces` path as protobuf; gRPC it does not.
public struct OTLPExportSettings: Sendable, Hashable {
    public var endpoint: URL
    public var serviceName: String

    /// The problem with a variable's value, said as an operator reads it.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// nil when no endpoint is configured, or when the OpenTelemetry variables turn traces off.
    /// - Parameter flag: `--otlp-endpoint`, which wins over every variable.
    public static func resolve(
        flag: String?, environment: [String: String], defaultServiceName: String
    ) throws(Invalid) -> OTLPExportSettings? {
        func value(_ name: String) -> String? {
            environment[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        if value("OTEL_SDK_DISABLED")?.lowercased() == "true" || value("OTEL_TRACES_EXPORTER")?.lowercased() == "none" {
            return nil
        }
        let text: String
        if let explicit = flag ?? value("INTENT_OTLP_ENDPOINT") ?? value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            text = explicit
        } else if let base = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            // The specification's rule for the signal-less variable: append the signal's path.
            text = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
        } else {
            return nil
        }
        if let protocolName = value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value("OTEL_EXPORTER_OTLP_PROTOCOL"),
            protocolName == "grpc"
        {
            throw Invalid(
                description:
                    "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: spans are exported over OTLP/HTTP only; point the endpoint at the collector's HTTP receiver (port 4318) and unset the protocol or set http/json"
            )
        }
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme) else {
            throw Invalid(description: "Invalid OTLP endpoint \(text): not an http(s) URL.")
        }
        var fromAttributes: String?
        for attribute in (value("OTEL_RESOURCE_ATTRIBUTES") ?? "").split(separator: ",") {
            let parts = attribute.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if parts.count == 2, parts[0] == "service.name", !parts[1].isEmpty { fromAttributes = parts[1] }
        }
        return OTLPExportSettings(
            endpoint: url, serviceName: value("OTEL_SERVICE_NAME") ?? fromAttributes ?? defaultServiceName)
    }
}
