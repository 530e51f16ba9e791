import Foundation
public import Kafka
public import Logging
import PipelineTopics
import Synchronization

/// Progress of a long read on standard error (records, rate, time left), at
/// most twice a second, and only when standard error is a terminal: machines
/// reading the output see nothing of it.
public final class ReplayProgress: Sendable {
    private let total: Int?
    private let started = ContinuousClock.now
    private let state = Mutex<(count: Int, lastPrinted: ContinuousClock.Instant)>((0, .now))

    /// Progress over a read of `topics`, sized by the records they hold now (an upper bound
    /// of what the read covers); nil, without asking the cluster anything, when standard
    /// error is not a terminal.
    public static func onTerminal(
        reading topics: [String], configuration: KafkaConfiguration, logger: Logger
    ) async throws -> ReplayProgress? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        return ReplayProgress(
            total: try await TopicReader.recordCount(of: topics, configuration: configuration, logger: logger))
    }

    init(total: Int?) {
        self.total = total
    }

    func advance() {
        let line: String? = state.withLock { state in
            state.count += 1
            guard state.count % 1024 == 0, ContinuousClock.now - state.lastPrinted >= .milliseconds(500) else {
                return nil
            }
            state.lastPrinted = .now
            return describe(state.count)
        }
        if let line { FileHandle.standardError.write(Data(("\r" + line + "   ").utf8)) }
    }

    /// Ends the progress line.
    public func finish() {
        let count = state.withLock { $0.count }
        FileHandle.standardError.write(Data(("\r" + describe(count) + "   \n").utf8))
    }

    private func describe(_ count: Int) -> String {
        let seconds = max((ContinuousClock.now - started) / .seconds(1), 0.001)
        let rate = Double(count) / seconds
        var line = "\(count) records, \(Int(rate))/s"
        if let total, total > count, rate > 0 {
            line += ", about \(Int((Double(total - count) / rate).rounded(.up))) s left"
        }
        return line
    }
}
