import BrokerTestSupport
import CommandLineSupport
import Foundation
import Testing

/// Key files others could read are refused at start, as ssh does (issue 16, acceptance 9).
@Suite("Key file permissions")
struct KeyFilePermissionsTests {
    @Test("the rule: nothing for others, nothing for the group unless root owns the file and the group only reads")
    func rule() {
        let user: UInt32 = 10001
        for mode: UInt32 in [0o600, 0o400, 0o100600, 0o700] {
            #expect(KeyFilePermissions.problem(path: "k", mode: mode, owner: user) == nil, "\(String(mode, radix: 8))")
        }
        for mode: UInt32 in [0o644, 0o640, 0o604, 0o660, 0o100644, 0o602, 0o610] {
            #expect(KeyFilePermissions.problem(path: "k", mode: mode, owner: user) != nil, "\(String(mode, radix: 8))")
        }
        // Kubernetes Secret volume with fsGroup: root:fsGroup 0440.
        #expect(KeyFilePermissions.problem(path: "k", mode: 0o440, owner: 0) == nil)
        #expect(KeyFilePermissions.problem(path: "k", mode: 0o640, owner: 0) == nil)
        #expect(KeyFilePermissions.problem(path: "k", mode: 0o660, owner: 0) != nil)
        #expect(KeyFilePermissions.problem(path: "k", mode: 0o444, owner: 0) != nil)
        #expect(
            KeyFilePermissions.problem(path: "/etc/key", mode: 0o100644, owner: user)
                == "Permissions 0644 for '/etc/key' are too open: a key file must not be accessible by group or others. Run chmod 600 '/etc/key'."
        )
    }

    @Test("a 0644 binding key file is refused with ssh's message; the same file at 0600 is read")
    func bindingKeyFile() throws {
        let directory = testFileURL("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("binding-key")
        try String(repeating: "ab", count: 32).write(to: file, atomically: true, encoding: .utf8)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect {
            _ = try Secrets.bindingKey(file: file.path)
        } throws: { error in
            "\(error)".contains("Permissions 0644 for '\(file.path)' are too open")
        }
        // Refused even through a symbolic link, as Kubernetes mounts Secrets.
        let link = directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        #expect(throws: (any Error).self) { _ = try Secrets.bindingKey(file: link.path) }
        // The source keys file goes through the same read.
        #expect(throws: (any Error).self) { _ = try Secrets.sourceKeys(file: file.path) }

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(try Secrets.bindingKey(file: file.path) == Array(repeating: 0xab, count: 32))
        #expect(try Secrets.bindingKey(file: link.path).count == 32)
    }
}
