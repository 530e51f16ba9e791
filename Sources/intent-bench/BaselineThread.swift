import ArgumentParser
import CKafkaBaseline
import Foundation

/// Runs a blocking C baseline call on its own thread, never on the
/// cooperative pool, and turns its status and error text into a Swift error.
func onBaselineThread(
    _ body: @escaping @Sendable (UnsafeMutablePointer<kb_result>, UnsafeMutablePointer<CChar>, Int) -> Int32
) async throws -> kb_result {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            var result = kb_result()
            var error = [CChar](repeating: 0, count: 512)
            let status = body(&result, &error, error.count)
            if status == 0 {
                continuation.resume(returning: result)
            } else {
                let message = String(
                    decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                continuation.resume(throwing: ValidationError("C baseline: \(message)"))
            }
        }.start()
    }
}
