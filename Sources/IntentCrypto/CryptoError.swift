internal import COpenSSL

/// An OpenSSL failure, with OpenSSL's own error-queue text.
public struct CryptoError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let detail: String

    public var description: String { "\(operation) failed: \(detail)" }

    /// Drains OpenSSL's thread-local error queue into one error. Call right after the failing call.
    static func fromQueue(_ operation: String) -> CryptoError {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(
            operation: operation, detail: messages.isEmpty ? "unknown OpenSSL error" : messages.joined(separator: "; "))
    }

    static func check(_ result: Int32, _ operation: String) throws(CryptoError) {
        if result <= 0 { throw fromQueue(operation) }
    }
}
