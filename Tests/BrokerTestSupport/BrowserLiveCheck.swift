public import Foundation
import LocalBroker
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The app's page in headless Chromium (`scripts/browser_live_check.py`), with the
/// change made at the right moment: after the page has loaded, opened its event
/// stream and been seen without the expected text, so the text can only come from
/// the stream. The script says "live" through a named pipe; nothing is timed.
public enum BrowserLiveCheck {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Opens `url`, calls `change` once the page is live, and returns the script's exit
    /// status and output (first line "live", then "seen" and the page's text when
    /// `expected` appeared; the reason otherwise). The screenshot goes to `screenshot`.
    public static func run(
        url: String, expecting expected: String, screenshot: URL, timeoutSeconds: Int = 60,
        change: @escaping @Sendable () async throws -> Void
    ) async throws -> (status: Int32, output: String) {
        // Chromium is as heavy as a broker: it runs in a slot of the heavy-test gate.
        try await withHeavySlot {
            try await check(
                url: url, expecting: expected, screenshot: screenshot, timeoutSeconds: timeoutSeconds, change: change)
        }
    }

    private static func check(
        url: String, expecting expected: String, screenshot: URL, timeoutSeconds: Int,
        change: @escaping @Sendable () async throws -> Void
    ) async throws -> (status: Int32, output: String) {
        guard let root = ToolLocator.projectRoot() else { throw Failure("run from the checkout") }
        let script = root.appendingPathComponent("scripts/browser_live_check.py").path
        let python = try ToolLocator.executable(named: "python3")
        let directory = testFileURL("live-check-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ready = directory.appendingPathComponent("ready").path
        guard mkfifo(ready, 0o600) == 0 else { throw Failure("mkfifo \(ready): errno \(errno)") }
        // Opened before the script starts, read and write: that never blocks, and the script's
        // writer always finds a reader. (Holding a write end too, the reader sees no end of file;
        // ``releaseReader(_:)`` ends it with an empty line instead.)
        let reader = open(ready, O_RDWR | O_CLOEXEC)
        guard reader >= 0 else { throw Failure("open \(ready): errno \(errno)") }
        try? FileManager.default.removeItem(at: screenshot)
        return try await withThrowingTaskGroup(of: (status: Int32, output: String)?.self) { group in
            group.addTask {
                defer { releaseReader(ready) }
                return try await runProcess(
                    name: "browser-live-check", executable: python,
                    arguments: [script, url, expected, screenshot.path, "\(timeoutSeconds)", ready],
                    outputFile: directory.appendingPathComponent("output.log"),
                    timeout: .seconds(timeoutSeconds + 60))
            }
            group.addTask {
                if await readLine(reader) == "live" { try await change() }
                return nil
            }
            var finished: (status: Int32, output: String)?
            for try await result in group where result != nil { finished = result }
            guard let finished else { throw Failure("the browser check ended without a result") }
            return finished
        }
    }

    /// The first line written to the named pipe, read (and the descriptor closed) on a
    /// thread of its own, since the read blocks; nil for an empty line.
    private static func readLine(_ descriptor: Int32) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                defer { close(descriptor) }
                var bytes: [UInt8] = []
                var byte: UInt8 = 0
                while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
                continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// Ends a reader still waiting for the script (which exited without saying "live") with
    /// an empty line. When the reader is done already, the pipe has none and nothing happens.
    private static func releaseReader(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        var newline = UInt8(ascii: "\n")
        _ = write(descriptor, &newline, 1)
        close(descriptor)
    }
}
