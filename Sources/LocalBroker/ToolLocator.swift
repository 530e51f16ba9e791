public import Foundation
import LocalBrokerRecord

/// Finds the tools `make setup` installs into the project's `.venv`: from an
/// environment variable when set, else by walking up from the working
/// directory and from this executable (which lives under `.build/`).
public enum ToolLocator {
    public static let setupHint = "Run `make setup` in the intent-pipeline checkout, or set the variable."

    public static func tansu(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        try locate(
            variable: "INTENT_TANSU_BIN", relativePath: ".venv/bin/tansu", name: "the Tansu broker",
            environment: environment)
    }

    public static func python(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        try locate(
            variable: "INTENT_PYTHON", relativePath: ".venv/bin/python", name: "the project's Python",
            environment: environment)
    }

    /// A program on `PATH`, such as `socat`.
    public static func executable(
        named name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String {
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw LocalBrokerError.binaryNotFound(name: name, searched: directories, hint: setupHint)
    }

    /// The checkout's root: the nearest ancestor holding `Package.swift` and `schemas/`.
    public static func projectRoot() -> URL? { ProjectRoot.find() }

    private static func locate(
        variable: String, relativePath: String, name: String, environment: [String: String]
    ) throws -> String {
        if let path = environment[variable], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw LocalBrokerError.binaryNotFound(name: name, searched: ["$\(variable)=\(path)"], hint: setupHint)
            }
            return path
        }
        var searched: [String] = []
        for start in ProjectRoot.searchStarts() {
            var directory = start
            while directory.path != "/" {
                let candidate = directory.appendingPathComponent(relativePath).path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                searched.append(candidate)
                directory.deleteLastPathComponent()
            }
        }
        throw LocalBrokerError.binaryNotFound(
            name: name, searched: ["$\(variable)"] + searched.prefix(4), hint: setupHint)
    }
}
