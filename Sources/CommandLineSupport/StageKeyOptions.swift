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

    /// The keyring; it must hold a key for `source` when the caller signs as that source.
    public func keys(signingAs source: String? = nil) throws -> EventAuthenticator {
        let keys = try Secrets.stageKeys(path: stageKeys)
        if let source, !keys.hasKey(for: source) {
            throw ValidationError(
                "The stage keys have no key for \(source), which this program signs its events with. Add a line \"\(source) HEXKEY\" (intentctl keys generate prints one)."
            )
        }
        return keys
    }
}

extension Secrets {
    /// The stages' keys from a file, every file of a directory (one Kubernetes Secret per
    /// stage, mounted side by side), or the environment.
    public static func stageKeys(path: String?) throws -> EventAuthenticator {
        let environment = ProcessInfo.processInfo.environment
        let files: [String?]
        if let path = path ?? environment["INTENT_STAGE_KEYS_FILE"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("Cannot read the stage keys: \(path) does not exist.")
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
            guard let text = try read(fileVariable: "INTENT_STAGE_KEYS_FILE", variable: "INTENT_STAGE_KEYS", file: file)
            else {
                throw ValidationError(
                    "No stage keys: pass --stage-keys PATH, or set INTENT_STAGE_KEYS_FILE or INTENT_STAGE_KEYS (lines \"SOURCE [KEYID] HEXKEY\")."
                )
            }
            keys += try Secrets.parseKeys(text, origin: file ?? "INTENT_STAGE_KEYS")
        }
        return try Secrets.keyring(keys, allowing: PipelineSource.isInternal) {
            "The stage keys list \($0): only /workers/... and /operators/... sources belong there (voice services' keys go in --source-keys)."
        }
    }
}
