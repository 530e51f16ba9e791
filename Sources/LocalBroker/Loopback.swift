import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small socket helpers for services this project starts on the loopback interface.
public enum Loopback {
    public static let host = "127.0.0.1"

    /// A TCP port that was free a moment ago: bind to port 0 and ask the
    /// kernel. Never the same port twice in one process, so brokers that
    /// parallel tests start cannot be given each other's ports.
    public static func freePort() throws -> Int {
        for _ in 0..<1000 {
            let port = try ReservedPort().port
            if PortRegistry.shared.claim(port) { return port }
        }
        throw LocalBrokerError.unexpected("no free loopback port that this process has not used already")
    }

    /// True when something accepts TCP connections on the port.
    public static func isAccepting(port: Int) -> Bool {
        guard let fd = try? connectedSocket(port: port) else { return false }
        close(fd)
        return true
    }

    /// A TCP socket connected to the port on the loopback interface; the caller closes it.
    private static func connectedSocket(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LocalBrokerError.system("socket", errno) }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = LocalBrokerError.system("connect to port \(port)", errno)
            close(fd)
            throw error
        }
        return fd
    }

    /// Sends a bodiless HTTP/1.1 request and returns the status code; enough to
    /// create a bucket on the local S3 server without an HTTP client library.
    public static func httpStatus(method: String, port: Int, path: String) throws -> Int {
        let fd = try connectedSocket(port: port)
        defer { close(fd) }
        let request =
            "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let sent = request.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
        guard sent > 0 else { throw LocalBrokerError.system("send", errno) }
        var response = [UInt8](repeating: 0, count: 512)
        let received = recv(fd, &response, response.count, 0)
        guard received > 0 else { throw LocalBrokerError.system("recv", errno) }
        let statusLine = String(decoding: response[..<received], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw LocalBrokerError.unexpected("malformed HTTP status line \"\(statusLine)\"")
        }
        return status
    }

    /// Waits until the port accepts connections, the process dies, or the deadline passes.
    static func waitUntilAccepting(port: Int, process: ManagedProcess, name: String, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        // Readiness has no event to await (the broker does not signal it), so
        // this polls the port; each probe is a microsecond-scale local connect.
        while !isAccepting(port: port) {
            guard process.isRunning else {
                throw LocalBrokerError.exited(name: name, status: process.exitStatus, log: process.logTail())
            }
            guard ContinuousClock.now < deadline else {
                throw LocalBrokerError.notReady(name: name, port: port, log: process.logTail())
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}

/// Ports ``Loopback/freePort()`` has handed out in this process.
private final class PortRegistry: Sendable {
    static let shared = PortRegistry()
    private let ports = Mutex<Set<Int>>([])

    func claim(_ port: Int) -> Bool {
        ports.withLock { $0.insert(port).inserted }
    }
}
