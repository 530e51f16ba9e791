import BrokerTestSupport
import CommandLineSupport
import Foundation
import IntentEvents
import Testing

/// The app state holds view keys alone (`--view-keys`): any key another reader trusts
/// there (a stage's, the ledger operator's, a voice, contacts or settings service's own) would let
/// a compromise of the web-facing service forge what the workers act on.
@Suite("View keys (--view-keys)")
struct ViewKeysTests {
    func keyFile(_ text: String) throws -> (file: URL, directory: URL) {
        let directory = testFileURL("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("view-keys")
        try text.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return (file, directory)
    }

    @Test("view keys of writers are read, each under the source it signs for; any other key is refused, naming it")
    func onlyViewKeys() throws {
        let hex = String(repeating: "c0", count: 32)
        let good = try keyFile(
            "/views/workers/payments \(hex)\n/views/contacts/phone \(hex)\n/views/settings/app \(hex)\n")
        defer { try? FileManager.default.removeItem(at: good.directory) }
        let keys = try Secrets.viewKeys(file: good.file.path)
        #expect(keys.sources == ["/contacts/phone", "/settings/app", "/workers/payments"])

        for foreign in [
            "/voice/assistant", "/workers/payments", "/operators/ledger", "/contacts/phone", "/settings/app",
            "/views/voice/a",
        ] {
            let bad = try keyFile("/views/workers/payments \(hex)\n\(foreign) \(hex)\n")
            defer { try? FileManager.default.removeItem(at: bad.directory) }
            let error = #expect(throws: (any Error).self) { try Secrets.viewKeys(file: bad.file.path) }
            #expect("\(error.map { "\($0)" } ?? "")".contains(foreign))
        }
    }

    @Test("without a file, INTENT_VIEW_KEYS_FILE or INTENT_VIEW_KEYS the app state does not start, and says how")
    func none() throws {
        try #require(ProcessInfo.processInfo.environment["INTENT_VIEW_KEYS_FILE"] == nil)
        try #require(ProcessInfo.processInfo.environment["INTENT_VIEW_KEYS"] == nil)
        let error = #expect(throws: (any Error).self) { try Secrets.viewKeys(file: nil) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("--view-keys"))
    }

    @Test(
        "a view key signs but never verifies: a record signed with it as its signature is refused by the writer's keyring"
    )
    func viewKeysNeverVerify() throws {
        let ring = EventAuthenticator.generate(for: [PipelineSource.payments])
        let bytes = Array("{\"a\":1}".utf8)
        let view = try #require(ring.viewSignature(forCanonical: bytes, source: PipelineSource.payments))
        let real = try #require(ring.signature(forCanonical: bytes, source: PipelineSource.payments))
        #expect(view.hex != real.hex)
        // The writer's keyring refuses the view signature as a signature...
        #expect(throws: EventDecodingError.self) {
            try ring.verify(
                canonical: bytes, source: PipelineSource.payments, what: "test", signature: view)
        }
        try ring.verify(canonical: bytes, source: PipelineSource.payments, what: "test", signature: real)
        // ...and the app state's keyring accepts only the view signature.
        let viewing = ring.viewing
        try viewing.verify(canonical: bytes, source: PipelineSource.payments, what: "test", signature: view)
        #expect(throws: EventDecodingError.self) {
            try viewing.verify(canonical: bytes, source: PipelineSource.payments, what: "test", signature: real)
        }
    }
}
