public import ArgumentParser
import Foundation
public import IntentEvents

/// `--stage-keys`: the keys the pipeline's stages sign their events with.
///
/// Each worker needs its own stage's key (to sign) and the keys of the
/// stages whose events it reads (to verify): the confirm worker the resolve
/// stage's and the ledger writers', the payments worker the confirm stage's,
/// and so on (deploy/README.md lists them). Give each worker only those: a
/// worker cannot forge a stage whose key it does not hold.
public struct StageKeyOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "File, or directory of files, with the stages' keys: lines \"SOURCE [KEYID] HEXKEY\" (e.g. /workers/confirm). Default: $INTENT_STAGE_KEYS_FILE, else $INTENT_STAGE_KEYS.",
            valueName: "PATH"))
    public var stageKeys: String?

    /// Whether keys were given at all (by flag or environment), as ``BindingKeyOptions/isConfigured``.
    public var isConfigured: Bool {
        let environment = ProcessInfo.processInfo.environment
        return stageKeys != nil || environment["INTENT_STAGE_KEYS_FILE"] != nil
            || environment["INTENT_STAGE_KEYS"] != nil
    }

    /// The keyring; it must hold a key for `source` when the caller signs as that source,
    /// and its view key too when view readers read what `source` writes (``ViewKey/isShown(_:)``:
    /// without it the app state and the confirm stage would refuse everything it writes).
    public func keys(signingAs source: String? = nil) throws -> EventAuthenticator {
        let keys = try Secrets.stageKeys(path: stageKeys)
        if let source, !keys.hasKey(for: source) {
            throw ValidationError(
                "The stage keys have no key for \(source), which this program signs its events with. Add a line \"\(source) HEXKEY\" (intentctl keys generate prints one)."
            )
        }
        if let source, ViewKey.isShown(source), !keys.hasViewKey(for: source) {
            throw ValidationError(
                "The stage keys have no view key for \(source) (a line \"\(ViewKey.source(viewing: source)) KEYID HEXKEY\"; intentctl keys generate prints one): the app state and the confirm worker read what \(source) writes by its view signature."
            )
        }
        return keys
    }
}

extension Secrets {
    /// The stages' keys from a file, every file of a directory (one Kubernetes Secret per
    /// stage, mounted side by side), or the environment.
    public static func stageKeys(path: String?) throws -> EventAuthenticator {
        guard
            let keys = try keyFiles(
                "stage keys", path: path, fileVariable: "INTENT_STAGE_KEYS_FILE", variable: "INTENT_STAGE_KEYS")
        else {
            throw ValidationError(
                "No stage keys: pass --stage-keys PATH, or set INTENT_STAGE_KEYS_FILE or INTENT_STAGE_KEYS (lines \"SOURCE [KEYID] HEXKEY\")."
            )
        }
        return try Secrets.keyring(keys, allowing: PipelineSource.isInternal) {
            "The stage keys list \($0): only /workers/... and /operators/... sources belong there (voice services' keys go in --source-keys)."
        }
    }
}

extension Secrets {
    /// The key lines of a file, of every file of a directory (Secrets mounted side by
    /// side, dot files skipped), or of `variable`'s value; `path` wins over `fileVariable`.
    /// Nil when none is configured.
    static func keyFiles(_ what: String, path: String?, fileVariable: String, variable: String) throws -> [SigningKey]?
    {
        let environment = ProcessInfo.processInfo.environment
        let files: [String?]
        if let path = path ?? environment[fileVariable] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("Cannot read the \(what): \(path) does not exist.")
            }
            files =
                isDirectory.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
                    .map { "\(path)/\($0)" } : [path]
        } else {
            files = [nil]
        }
        var keys: [SigningKey] = []
        for file in files {
            guard let text = try read(fileVariable: fileVariable, variable: variable, file: file) else { return nil }
            keys += try Secrets.parseKeys(text, origin: file ?? variable)
        }
        return keys
    }
}
