import Foundation
public import Hummingbird
public import Telemetry

/// The operator's endpoints: `/health` (liveness: the consume loop turns),
/// `/ready` (readiness: state restored, partitions assigned, a broker up) and
/// `/metrics` (Prometheus). Health answers are JSON, `{"ok":false,"reasons":[…]}`,
/// with 200 or 503, so a probe needs only the status and a person gets the why.
public enum OperationsRoutes {
    public static func router(health: WorkerHealth, metrics: OperationsMetrics) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/health") { _, _ in report(health.liveness()) }
        router.get("/ready") { _, _ in report(health.readiness()) }
        addMetrics(to: router, metrics)
        return router
    }

    /// `/metrics` on an existing router (the app-state service has its own health routes).
    public static func addMetrics(to router: Router<BasicRequestContext>, _ metrics: OperationsMetrics) {
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: OperationsMetrics.contentType],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }

    static func report(_ report: WorkerHealth.Report) -> Response {
        let reasons = report.reasons.map { "\"\(escaped($0))\"" }.joined(separator: ",")
        return Response(
            status: report.ok ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: "{\"ok\":\(report.ok),\"reasons\":[\(reasons)]}\n")))
    }

    /// Reasons are this program's own phrases; quotes and backslashes are escaped all the same.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
