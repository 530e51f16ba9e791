/// A sentence by key with its arguments, before a locale renders it: what a response
/// carries beside its rendered text, so a client can say it in its own language.
public struct LocalizedMessage: Codable, Sendable, Hashable {
    public var key: MessageKey
    /// By the names the key's sentence uses (see ``MessageKey``).
    public var arguments: [String: MessageArgument]

    public init(_ key: MessageKey, _ arguments: [String: MessageArgument] = [:]) {
        self.key = key
        self.arguments = arguments
    }
}
