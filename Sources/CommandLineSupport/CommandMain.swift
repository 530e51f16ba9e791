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
        await finish(Root.self) {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        }
    }

    /// As ``run(_:)`` for a command without subcommands, parsed from `arguments` and run
    /// by `body` (a host that runs the command its own way: the tests' fault host).
    public static func run<Command: ParsableCommand>(
        _ command: Command.Type, arguments: [String], body: (Command) async throws -> Void
    ) async -> Never {
        let parsed: Command
        do {
            parsed = try Command.parse(arguments)
        } catch {
            Command.exit(withError: error)
        }
        await finish(Command.self) { try await body(parsed) }
    }

    /// Runs `body` and exits with the status its outcome calls for.
    private static func finish<Root: ParsableCommand>(_ root: Root.Type, _ body: () async throws -> Void) async
        -> Never
    {
        do {
            try await body()
            Root.exit()
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            Root.exit(withError: error)
        }
    }
}
