import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback TCP port bound by this object and never listened on: while it
/// lives, connecting to it is refused and no other socket, in this process or
/// another, can take the port. Tests use it as "a broker that is not there".
public final class ReservedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LocalBrokerError.system("socket", errno) }
        func failure(_ call: String) -> LocalBrokerError {
            let error = LocalBrokerError.system(call, errno)
            close(fd)
            return error
        }
        var address = Loopback.loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw failure("bind") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
