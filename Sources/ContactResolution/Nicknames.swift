/// Short forms people say for given names, as normalized Latin spellings:
/// English nicknames (Bob for Robert) from the public `nicknames` list in
/// `Resources/nicknames.txt` (see its header for source and licence), and
/// English nicknames and Russian diminutives (Dima for Dmitry) the list lacks,
/// in `Resources/diminutives.txt`. Both are `name:nick,nick` lines, read once.
/// A contact's own `nickname` and `aliases` extend this per person.
enum Nicknames {
    /// Nickname → the formal names it can stand for.
    static let formalNames: [String: Set<String>] = {
        var table: [String: Set<String>] = [:]
        for line in ResourceTables.lines(of: "nicknames") + ResourceTables.lines(of: "diminutives") {
            let parts = line.split(separator: ":")
            guard parts.count == 2 else { continue }
            for nickname in parts[1].split(separator: ",") {
                table[String(nickname), default: []].insert(String(parts[0]))
            }
        }
        return table
    }()
}
