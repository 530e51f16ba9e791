public import Foundation

/// A local S3-compatible endpoint (moto) holding the broker's durable storage.
/// The broker can then be killed and restarted without losing records, as long
/// as this server keeps running (moto itself keeps its objects in memory).
public final class LocalS3Server: Sendable {
    public let port: Int
    public let bucket: String
    public let process: ManagedProcess

    public var endpoint: String { "http://\(Loopback.host):\(port)" }

    /// Environment for S3 clients (the broker) pointing at this server. The
    /// credentials are placeholders: the local server accepts any.
    public var clientEnvironment: [String: String] {
        [
            "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
            "AWS_DEFAULT_REGION": "eu-west-2", "AWS_ENDPOINT": endpoint, "AWS_ALLOW_HTTP": "true",
        ]
    }

    private init(port: Int, bucket: String, process: ManagedProcess) {
        self.port = port
        self.bucket = bucket
        self.process = process
    }

    /// A port picked here was free a moment ago; if something else took it before the
    /// server bound it (another test's HTTP server answers, with a 404 for the bucket, or
    /// the server exits), another port is picked, up to three times.
    public static func start(
        port: Int? = nil, bucket: String = "tansu", logDirectory: URL, detached: Bool = false
    ) async throws -> LocalS3Server {
        let python = try ToolLocator.python()
        var attempt = 1
        while true {
            let chosen = try port ?? Loopback.freePort()
            let process = try ManagedProcess(
                name: "local S3 server", executable: python,
                arguments: ["-m", "moto.server", "-H", Loopback.host, "-p", String(chosen)],
                logFile: logDirectory.appendingPathComponent("s3-\(chosen).log"), detached: detached)
            do {
                try await Loopback.waitUntilAccepting(
                    port: chosen, process: process, name: process.name, timeout: .seconds(30))
                let server = LocalS3Server(port: chosen, bucket: bucket, process: process)
                try server.createBucket()
                return server
            } catch {
                await process.stop()
                guard port == nil, attempt < 3 else { throw error }
                attempt += 1
            }
        }
    }

    func createBucket() throws {
        let status = try Loopback.httpStatus(method: "PUT", port: port, path: "/\(bucket)")
        // 409: the bucket exists already, which is what we want.
        guard status == 200 || status == 409 else {
            throw LocalBrokerError.unexpected("creating bucket \(bucket) on \(endpoint) answered HTTP \(status)")
        }
    }
}
