/// A command that ran and failed (not a usage error): printed as
/// "Error: …" without the usage text, and the command exits 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
