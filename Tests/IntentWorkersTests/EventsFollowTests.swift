import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import PipelineTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `events read --follow` as kcat users run it (issue 31, point 4): started, it prints each
/// record as it is published, keeps reading past `--idle`, and stops on Ctrl-C (SIGINT) or
/// SIGTERM, exiting 0. The command writes into a named pipe the test reads line by line, so
/// every step waits for the line it expects, never for a time.
@Suite("events read --follow", .heavyTimeLimit(minutes: 3))
struct EventsFollowTests {
    @Test(
        "--follow prints records as they come, past --idle, until interrupted, then exits 0",
        arguments: [("SIGINT", SIGINT), ("SIGTERM", SIGTERM)])
    func follow(_ name: String, _ signalNumber: Int32) async throws {
        try await withBroker { broker in
            let topic = uniqueName("follow")
            try await createTopic(broker, topic, partitions: 1)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            func publish(_ text: String) async throws {
                try await producer.sendAll([
                    KafkaProducerMessage(topic: topic, key: "k", value: bytes(#"{"n":"\#(text)"}"#))
                ])
            }
            try await publish("r0")
            let directory = testFileURL(uniqueName("follow"))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pipe = try PipeLines(path: directory.appendingPathComponent("output").path)
            // bash sends its pid into the pipe, then becomes intentctl (exec keeps the pid), so
            // the signal goes to intentctl itself. Its log (standard error) stays in a file.
            let command =
                "exec > '\(pipe.path)'; echo $$; KAFKA_BOOTSTRAP_SERVERS='\(broker.bootstrapServers)' exec '\(OperatorCommandTests.intentctl)' events read '\(topic)' --follow --idle 1"
            let log = directory.appendingPathComponent("log")
            let run = Task {
                defer { pipe.finish() }
                return try await runProcess(
                    name: "intentctl events read --follow", executable: "/bin/bash", arguments: ["-c", command],
                    outputFile: log, timeout: .seconds(120))
            }
            var lines = pipe.lines.makeAsyncIterator()
            let pid = try #require(await lines.next().flatMap { Int32($0) }, "no pid from bash")
            var seen: [String] = []
            // The next line is record `text` (a value that is no event is printed as its text, escaped).
            func printed(_ text: String) async -> Bool {
                guard let line = await lines.next() else { return false }
                seen.append(line)
                return line.contains(#"\"n\":\"\#(text)\""#)
            }
            #expect(await printed("r0"), "\(seen)")
            // Each record published once the command reads is printed as it comes.
            for text in ["r1", "r2"] {
                try await publish(text)
                #expect(await printed(text), "\(seen)")
            }
            // The condition under test, not a synchronization: longer than --idle 1 without a
            // record, which ends a read without --follow; this one still prints the next record.
            try await Task.sleep(for: .seconds(2))
            try await publish("r3")
            #expect(await printed("r3"), "\(seen)")
            await producer.shutdown()
            #expect(kill(pid, signalNumber) == 0)
            let (status, _) = try await run.value
            let errors = (try? String(contentsOf: ManagedProcess.errorFile(of: log), encoding: .utf8)) ?? ""
            #expect(status == 0, "\(name): exit \(status): \(errors)")
            #expect(!errors.contains("Error"), "\(name): \(errors)")
        }
    }
}

/// Lines a child process writes into a named pipe, as they come: read on a thread of their
/// own (a read blocks), handed over as an AsyncStream that ends on ``finish()``.
final class PipeLines: Sendable {
    let path: String
    let lines: AsyncStream<String>
    /// Opened read and write, before the child opens the pipe: that never blocks, and the
    /// child's writer always finds a reader; ``finish()`` writes the end through it.
    private let descriptor: Int32
    /// The line ``finish()`` writes, which no JSON line or pid is.
    private static let end = "\u{1}end"

    init(path: String) throws {
        self.path = path
        guard mkfifo(path, 0o600) == 0 else { throw PipeFailure("mkfifo \(path): errno \(errno)") }
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw PipeFailure("open \(path): errno \(errno)") }
        self.descriptor = descriptor
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        Thread.detachNewThread {
            defer { close(descriptor) }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) == 1 {
                guard byte == UInt8(ascii: "\n") else {
                    line.append(byte)
                    continue
                }
                let text = String(decoding: line, as: UTF8.self)
                line = []
                if text == Self.end { break }
                continuation.yield(text)
            }
            continuation.finish()
        }
    }

    /// Ends ``lines`` after every line written so far (the child has exited, or never will write).
    func finish() {
        var bytes = Array((Self.end + "\n").utf8)
        _ = write(descriptor, &bytes, bytes.count)
    }

    struct PipeFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
