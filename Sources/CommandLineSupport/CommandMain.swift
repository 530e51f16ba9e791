public import ArgumentParser
import Foundation

/// The version every executable prints for `--version`: the same for all of them, since
/// they are built and released together (one image). Raised with each release.
public enum PipelineVersion {
    public static let current = "0.31.0"
}

/// How every executable starts, as operators of Kafka's tools expect: a mistake in the
/// arguments (found while parsing, or by a `validate()`) prints the error and the usage
/// and exits 64 (EX_USAGE), as ArgumentParser does; an error once the command runs (no
/// broker, a key file that cannot be read, a topic that differs) prints only
/// `Error: …` and exits 1, however it was thrown.
public enum CommandMain {
    public static func run<Root: ParsableCommand>(_ root: Root.Type) async -> Never {
        // `--version` alone: handled here, since a subcommand's own `--version N` (a record's
        // version) must not be taken for it, which ArgumentParser's built-in flag would do.
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(PipelineVersion.current)
            Foundation.exit(0)
        }
        var command: any ParsableCommand
        do {
            command = try Root.parseAsRoot()
        } catch {
            Root.exit(withError: error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            Root.exit()
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            Root.exit(withError: error)
        }
    }
}
