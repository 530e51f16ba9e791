import AppState
import BrokerTestSupport
import Foundation
import Testing

/// The store's files hold every user's payments and messages: private to the service's user.
@Suite("App-state files")
struct StateFilesTests {
    static func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
    }

    static func scratch() throws -> URL {
        let directory = testFileURL("appstate-files-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a new database is created 0600, with its journal, in a new directory created 0700")
    func newFilesArePrivate() async throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("state")
        let path = directory.appendingPathComponent("appstate.sqlite").path
        let store = try AppStateStore(path: path)
        #expect(store.fileWarnings == [])
        for event in paymentEvents { try await store.apply(event) }
        #expect(try Self.mode(directory.path) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.contains("appstate.sqlite"))
        for file in files {
            #expect(try Self.mode(directory.appendingPathComponent(file).path) == 0o600, "\(file)")
        }
    }

    @Test("files left open by an older version are narrowed to 0600, and an open directory is reported")
    func existingOpenFilesAreNarrowed() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let path = directory.appendingPathComponent("appstate.sqlite").path
        _ = try AppStateStore(path: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(FileManager.default.createFile(atPath: path + "-wal", contents: Data()))
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path + "-wal")

        let store = try AppStateStore(path: path)
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(path + "-wal") == 0o600)
        #expect(try Self.mode(directory.path) == 0o755, "a directory we did not create is left alone")
        #expect(store.fileWarnings.count == 3, "\(store.fileWarnings)")
        #expect(store.fileWarnings.contains { $0.contains("state directory") && $0.contains("0755") })
        #expect(
            store.fileWarnings.contains {
                $0.hasSuffix("appstate.sqlite was open to group or others (mode 0644); narrowed to 0600")
            })
    }
}
