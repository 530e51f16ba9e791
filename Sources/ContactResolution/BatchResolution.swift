public import Foundation

/// The batch interface's formats (`intentctl contacts resolve --contacts FILE`):
/// contacts as a JSON array, queries as JSON Lines `{"id", "spoken"}`, one
/// answer line `{"id", "outcome", "candidates"}` per query, in order.
/// Outside evaluations depend on these formats; change them only with a new version.
public enum BatchResolution {
    public struct Query: Codable, Sendable {
        public var id: String
        public var spoken: String
    }

    public struct Answer: Codable, Sendable, Hashable {
        public var id: String
        public var outcome: ResolutionOutcome
        public var candidates: [String]
        /// Set only for a query line that could not be read; outcome is then unsupported.
        public var error: String?
    }

    public enum Failure: Error, CustomStringConvertible {
        case unreadableContacts(String)

        public var description: String {
            switch self {
            case .unreadableContacts(let reason): "cannot read the contacts file: \(reason)"
            }
        }
    }

    /// Parses the contacts file: a JSON array of contacts; `lastInteraction` is ISO-8601.
    public static func contacts(from data: Data) throws -> [Contact] {
        do {
            return try JSONDecoder().decode([Contact].self, from: data)
        } catch {
            throw Failure.unreadableContacts("\(error)")
        }
    }

    /// Answers one query line. A line that is not a query still gets an answer
    /// line (with `error`), so answers stay aligned with queries.
    public static func answer(line: String, resolver: ContactResolver) -> Answer {
        guard let query = try? JSONDecoder().decode(Query.self, from: Data(line.utf8)) else {
            let id = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
            return Answer(
                id: id ?? "", outcome: .unsupported, candidates: [],
                error: "expected {\"id\": string, \"spoken\": string}")
        }
        let resolution = resolver.resolve(query.spoken)
        return Answer(id: query.id, outcome: resolution.outcome, candidates: resolution.candidates)
    }

    /// One JSON line for an answer.
    public static func encode(_ answer: Answer) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // An Answer holds only strings; encoding cannot fail.
        return (try? encoder.encode(answer)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
