/// The four stages whose per-record decision path is measured: decode, verify,
/// decide, and encode and sign what is published, with no broker.
public enum StagePath: String, CaseIterable, Sendable, Codable {
    case resolve, confirm, payments, handle
}
