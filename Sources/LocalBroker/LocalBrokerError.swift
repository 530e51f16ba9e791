import Foundation

/// Why a local broker or storage server could not be started or reached.
public enum LocalBrokerError: Error, CustomStringConvertible, Sendable {
    case binaryNotFound(name: String, searched: [String], hint: String)
    case exited(name: String, status: Int32, log: String)
    case notReady(name: String, port: Int, log: String)
    case system(String, Int32)
    case unexpected(String)
    case notRunning(String)
    case timedOut(name: String, after: Duration)

    public var description: String {
        switch self {
        case .binaryNotFound(let name, let searched, let hint):
            return "\(name) not found (looked at: \(searched.joined(separator: ", "))). \(hint)"
        case .exited(let name, let status, let log):
            return "\(name) exited with status \(status) while starting. Last log lines:\n\(log)"
        case .notReady(let name, let port, let log):
            return "\(name) did not accept connections on port \(port) in time. Last log lines:\n\(log)"
        case .system(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code)))"
        case .unexpected(let message):
            return message
        case .notRunning(let message):
            return message
        case .timedOut(let name, let after):
            return "\(name) did not finish within \(after) and was killed"
        }
    }
}
