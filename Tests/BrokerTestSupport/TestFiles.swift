public import Foundation

/// Where a test puts `name` (a file or a directory, not created here): under
/// `INTENT_TEST_FILES` when the test runner set it, else the system's temporary directory.
///
/// `scripts/run-tests.sh` gives each run one such directory, removes it when the run
/// passes and names it when the run fails, so a failed test's worker logs and key files
/// are kept for whoever looks into it, and a developer's temporary directory does not
/// gain twenty directories a run. The runner leaves `TMPDIR` alone: SwiftPM keeps its
/// build locks there, and a test run must still hold off a concurrent `swift build`.
public func testFileURL(_ name: String) -> URL {
    testFilesRoot.appendingPathComponent(name)
}

private let testFilesRoot: URL = {
    guard let path = ProcessInfo.processInfo.environment["INTENT_TEST_FILES"], !path.isEmpty else {
        return FileManager.default.temporaryDirectory
    }
    let root = URL(fileURLWithPath: path, isDirectory: true)
    // Set by hand to a directory that does not exist yet: made, as the runner would have.
    try? FileManager.default.createDirectory(
        at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return root
}()
