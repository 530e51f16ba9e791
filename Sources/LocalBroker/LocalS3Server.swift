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

    public static func start(
        port: Int? = nil, bucket: String = "tansu", logDirectory: URL, detached: Bool = false
    ) async throws -> LocalS3Server {
        let python = try ToolLocator.python()
        let port = try port ?? Loopback.freePort()
        let process = try ManagedProcess(
            name: "local S3 server", executable: python,
            arguments: ["-m", "moto.server", "-H", Loopback.host, "-p", String(port)],
            logFile: logDirectory.appendingPathComponent("s3-\(port).log"), detached: detached)
        try await Loopback.waitUntilAccepting(port: port, process: process, name: process.name, timeout: .seconds(30))
        let server = LocalS3Server(port: port, bucket: bucket, process: process)
        try server.createBucket()
        return server
    }

    func createBucket() throws {
        let status = try Loopback.httpStatus(method: "PUT", port: port, path: "/\(bucket)")
        // 409: the bucket exists already, which is what we want.
        guard status == 200 || status == 409 else {
            throw LocalBrokerError.unexpected("creating bucket \(bucket) on \(endpoint) answered HTTP \(status)")
        }
    }
}
