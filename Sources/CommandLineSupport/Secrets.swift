import ArgumentParser
import Foundation
import IntentCrypto
public import IntentEvents

/// Secrets come from files or the environment, never from flags' values on
/// a command line (visible in `ps`) and never from the repository.
public enum Secrets {
    /// The contents of the file named by `fileVariable`, else the value of
    /// `variable`. A file others could read is refused (``KeyFilePermissions``).
    public static func read(fileVariable: String, variable: String, file: String?) throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = file ?? environment[fileVariable] { return try contents(ofFile: path) }
        return environment[variable]
    }

    /// A secret file's contents; refused when others could read it (``KeyFilePermissions``).
    /// `purpose` names what it is for in the error.
    public static func contents(ofFile path: String, for purpose: String? = nil) throws -> String {
        try KeyFilePermissions.check(path)
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError(
                "Cannot read \(path)\(purpose.map { " (for \($0))" } ?? ""): \(error.localizedDescription)")
        }
    }

    /// The payments binding key (hex, at least 32 bytes), shared by the confirm and payments workers.
    public static func bindingKey(file: String?) throws -> [UInt8] {
        try hexKey("binding key", flag: "--binding-key-file", variable: "INTENT_BINDING_KEY", file: file)
    }

    /// A key of at least 32 bytes written as hex, from `--flag FILE`, `$VARIABLE_FILE` or `$VARIABLE`.
    public static func hexKey(_ name: String, flag: String, variable: String, file: String?) throws -> [UInt8] {
        guard
            let text = try read(fileVariable: variable + "_FILE", variable: variable, file: file),
            let key = Digest.bytes(hex: text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count >= 32
        else {
            throw ValidationError(
                "No \(name) of at least 32 bytes: pass \(flag) FILE, or set \(variable)_FILE or \(variable) (hex).")
        }
        return key
    }

    /// A comma-separated list from a flag, else from the environment; nil when neither is set.
    public static func list(_ flag: String?, variable: String) -> [String]? {
        (flag ?? ProcessInfo.processInfo.environment[variable]).map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Voice services' signing keys: `SOURCE HEXKEY` lines.
    public static func sourceKeys(file: String?) throws -> EventAuthenticator {
        guard let text = try read(fileVariable: "INTENT_SOURCE_KEYS_FILE", variable: "INTENT_SOURCE_KEYS", file: file)
        else {
            throw ValidationError(
                "No voice-service keys: pass --source-keys FILE, or set INTENT_SOURCE_KEYS_FILE or INTENT_SOURCE_KEYS (lines \"SOURCE HEXKEY\")."
            )
        }
        // A voice service never speaks as a stage: /workers/ and /operators/ sources are the pipeline's own.
        return try keyring(
            parseKeys(text, origin: "source keys"), allowing: { !PipelineSource.isInternal($0) },
            refusal: {
                "The voice services' keys list \($0), a source reserved for the pipeline's stages (their keys go in --stage-keys)."
            })
    }

    /// The app state's keys: view keys alone (``ViewKey``: `/views/SOURCE [KEYID] HEXKEY`
    /// lines, one per writer it shows; a file, a directory of files or the environment), as the keyring that checks view signatures. A key
    /// any other reader trusts (a stage's, the ledger operator's, a voice, contacts or
    /// settings service's) stops the program: the web-facing service must hold none (SECURITY.md).
    public static func viewKeys(file: String?) throws -> EventAuthenticator {
        guard
            let keys = try keyFiles(
                "view keys", path: file, fileVariable: "INTENT_VIEW_KEYS_FILE", variable: "INTENT_VIEW_KEYS")
        else {
            throw ValidationError(
                "No view keys: pass --view-keys PATH, or set INTENT_VIEW_KEYS_FILE or INTENT_VIEW_KEYS (lines \"\(ViewKey.prefix)/workers/payments [KEYID] HEXKEY\", one per writer shown: intentctl keys generate prints them)."
            )
        }
        if let foreign = keys.first(where: { ViewKey.viewedSource(of: $0.source).map(ViewKey.isShown) != true }) {
            throw ValidationError(
                "The view keys list \(foreign.source), which is not a view key of a stage, the ledger operator, a contacts or a settings service (\(ViewKey.prefix)/workers/..., \(ViewKey.prefix)/operators/..., \(ViewKey.prefix)/contacts/..., \(ViewKey.prefix)/settings/...): the app state must not hold a key that other readers trust."
            )
        }
        return EventAuthenticator(keys: keys).viewing
    }

    /// Key lines (``EventAuthenticator/parseKeys(_:origin:)``); a malformed one stops the
    /// program with a configuration error naming `origin` and the line.
    static func parseKeys(_ text: String, origin: String) throws -> [SigningKey] {
        do {
            return try EventAuthenticator.parseKeys(text, origin: origin)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The keys as a keyring, if every key's source is one this file may hold; else the
    /// first other source stops the program, `refusal` saying why.
    static func keyring(
        _ keys: [SigningKey], allowing allowed: (String) -> Bool, refusal: (String) -> String
    ) throws -> EventAuthenticator {
        // A view key belongs where its writer's key does (ViewKey).
        if let foreign = keys.first(where: { !allowed(ViewKey.viewedSource(of: $0.source) ?? $0.source) }) {
            throw ValidationError(refusal(foreign.source))
        }
        return EventAuthenticator(keys: keys)
    }
}
