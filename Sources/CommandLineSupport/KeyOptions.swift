public import ArgumentParser
import Foundation
public import IntentEvents

/// `--binding-key-file`: the key the confirm and payments workers (and the
/// audit) check confirmation bindings with.
public struct BindingKeyOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp("File with the binding key (hex). Default: $INTENT_BINDING_KEY_FILE.", valueName: "FILE"))
    public var bindingKeyFile: String?

    /// Whether a key was given at all (by flag or environment).
    public var isConfigured: Bool {
        let environment = ProcessInfo.processInfo.environment
        return bindingKeyFile != nil || environment["INTENT_BINDING_KEY_FILE"] != nil
            || environment["INTENT_BINDING_KEY"] != nil
    }

    public func key() throws -> [UInt8] { try Secrets.bindingKey(file: bindingKeyFile) }
}

/// `--source-keys`: the voice services' signing keys.
public struct SourceKeyOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp("File with the voice services' keys. Default: $INTENT_SOURCE_KEYS_FILE.", valueName: "FILE"))
    public var sourceKeys: String?

    public func authenticator() throws -> EventAuthenticator { try Secrets.sourceKeys(file: sourceKeys) }
}
