public import ArgumentParser
import Foundation

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
}
