import Foundation

/// The resolver's name tables (nicknames, titles, patronymics, Han variants
/// and readings) are data, not code: text files in `Resources/`, shipped as
/// the target's SwiftPM resource bundle and read once, by the `static let` of
/// the type that owns each table.
enum ResourceTables {
    /// Every table the resolver ships. All are read together, at the first
    /// lookup of any, so the resource bundle is opened and read by one thread
    /// once, not by each table's first user on whichever thread it runs.
    static let names = ["nicknames", "diminutives", "titles", "patronymics", "han-variants", "han-readings"]

    /// The data lines of `Resources/<name>.txt`: blank lines and `#` comments
    /// dropped, surrounding whitespace trimmed.
    static func lines(of name: String) -> [Substring] {
        guard let lines = tables[name] else {
            preconditionFailure("ContactResolution resource table \(name) is not one of \(names)")
        }
        return lines
    }

    /// A missing table is a packaging error (the resource bundle was not
    /// installed beside the executable), so it stops the process at the first
    /// lookup instead of resolving names with half the rules.
    private static let tables: [String: [Substring]] = {
        var tables: [String: [Substring]] = [:]
        for name in names {
            guard let url = Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "Resources"),
                let text = try? String(contentsOf: url, encoding: .utf8)
            else {
                preconditionFailure("ContactResolution resource Resources/\(name).txt is missing from \(Bundle.module)")
            }
            tables[name] = text.split(whereSeparator: \.isNewline)
                .map { $0.drop(while: \.isWhitespace) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        return tables
    }()
}
