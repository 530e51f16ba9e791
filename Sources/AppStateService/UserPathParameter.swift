import Foundation
import Hummingbird

/// The user id in an `/api/users/{user}/...` path, as the API understands it.
///
/// The router hands path segments over still percent-encoded, so a client
/// that writes `%73unbo` for `sunbo` (legal URL syntax for the same path)
/// would otherwise be compared, and looked up, under a different name. The
/// segment is therefore decoded exactly once, before authorization, and the
/// decoded id is the one both the token check and the store see. Anything a
/// decoded segment could smuggle is refused with 400 rather than passed on:
/// malformed escapes (`%G1`, a lone `%`, bytes that are not UTF-8), an empty
/// id, `/` (from `%2F`, which would make one segment look like two),
/// control characters (NUL, CR, LF, ...) and ids longer than
/// ``maximumLength`` bytes.
enum UserPathParameter {
    /// The longest user id accepted, in UTF-8 bytes: far above real ids,
    /// low enough that an id cannot be used to make log lines or error
    /// messages arbitrarily large.
    static let maximumLength = 128

    /// The decoded user id of a raw path segment, or a 400 saying why not.
    static func decode(_ segment: String) throws -> String {
        guard let user = segment.removingPercentEncoding else {
            throw HTTPError(.badRequest, message: "the user id in the path is not valid percent-encoded UTF-8")
        }
        guard !user.isEmpty else { throw HTTPError(.badRequest, message: "the user id in the path is empty") }
        guard user.utf8.count <= maximumLength else {
            throw HTTPError(.badRequest, message: "the user id in the path is longer than \(maximumLength) bytes")
        }
        guard !user.unicodeScalars.contains(where: { $0 == "/" || $0.properties.generalCategory == .control }) else {
            throw HTTPError(.badRequest, message: "the user id in the path contains '/' or a control character")
        }
        return user
    }
}
