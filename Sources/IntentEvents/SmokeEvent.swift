/// The payload of `intent.smoke.ping.v1`: what `make demo`'s smoke flow and
/// `intentctl events produce` send to prove a broker end to end.
public struct SmokePing: Codable, Sendable, Hashable {
    public static let type = "intent.smoke.ping.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:smoke.ping:v1"

    public var sequence: Int
    public var message: String

    public init(sequence: Int, message: String) {
        self.sequence = sequence
        self.message = message
    }
}
