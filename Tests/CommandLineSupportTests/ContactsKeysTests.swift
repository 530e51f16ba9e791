import CommandLineSupport
import Foundation
import Testing

/// The app state reads the contacts topic with the contacts services' keys alone: a
/// voice service's key there would let the state service sign requests that move money.
@Suite("Contacts keys (--contacts-keys)")
struct ContactsKeysTests {
    func keyFile(_ text: String) throws -> (file: URL, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("contacts-keys")
        try text.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return (file, directory)
    }

    @Test("a contacts service's key is read; a voice service's or a stage's key in the file is refused, naming it")
    func onlyContactsServices() throws {
        let hex = String(repeating: "c0", count: 32)
        let good = try keyFile("/contacts/phone \(hex)\n")
        defer { try? FileManager.default.removeItem(at: good.directory) }
        let keys = try #require(try Secrets.contactsKeys(file: good.file.path))
        #expect(keys.allKeys.map(\.source) == ["/contacts/phone"])

        for foreign in ["/voice/assistant", "/workers/payments"] {
            let bad = try keyFile("/contacts/phone \(hex)\n\(foreign) \(hex)\n")
            defer { try? FileManager.default.removeItem(at: bad.directory) }
            let error = #expect(throws: (any Error).self) { try Secrets.contactsKeys(file: bad.file.path) }
            #expect("\(error.map { "\($0)" } ?? "")".contains(foreign))
        }
    }

    @Test("without a file or INTENT_CONTACTS_KEYS_FILE there are no contacts keys (people shown by user id)")
    func none() throws {
        try #require(ProcessInfo.processInfo.environment["INTENT_CONTACTS_KEYS_FILE"] == nil)
        try #require(ProcessInfo.processInfo.environment["INTENT_CONTACTS_KEYS"] == nil)
        #expect(try Secrets.contactsKeys(file: nil) == nil)
    }
}
