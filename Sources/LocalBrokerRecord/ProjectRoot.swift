public import Foundation

/// Finds the intent-pipeline checkout a command runs from, for development
/// defaults (the local broker's state directory, the tools `make setup`
/// installed): walking up from the working directory and from the executable
/// (which lives under `.build/`).
public enum ProjectRoot {
    /// The nearest ancestor holding `Package.swift` and `schemas/`.
    public static func find() -> URL? {
        for start in searchStarts() {
            var directory = start
            while directory.path != "/" {
                let manifest = directory.appendingPathComponent("Package.swift").path
                let schemas = directory.appendingPathComponent("schemas").path
                if FileManager.default.fileExists(atPath: manifest), FileManager.default.fileExists(atPath: schemas) {
                    return directory
                }
                directory.deleteLastPathComponent()
            }
        }
        return nil
    }

    /// Where searches start: the working directory, then the executable's.
    public static func searchStarts() -> [URL] {
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        return [workingDirectory.standardizedFileURL, executable.standardizedFileURL]
    }
}
