import Foundation

/// The resolver's name tables (nicknames, titles, patronymics) are data, not
/// code: text files in `Resources/`, shipped as the target's SwiftPM resource
/// bundle and read once, by the `static let` of the type that owns each table.
enum ResourceTables {
    /// The data lines of `Resources/<name>.txt`: blank lines and `#` comments
    /// dropped, surrounding whitespace trimmed. A missing table is a packaging
    /// error (the resource bundle was not installed beside the executable), so
    /// it stops the process at the first lookup instead of resolving names
    /// with half the rules.
    static func lines(of name: String) -> [Substring] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "Resources"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            preconditionFailure("ContactResolution resource Resources/\(name).txt is missing from \(Bundle.module)")
        }
        return text.split(whereSeparator: \.isNewline)
            .map { $0.drop(while: \.isWhitespace) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}
