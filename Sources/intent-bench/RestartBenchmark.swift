import ArgumentParser
import Foundation
import IntentEvents
import Intents
import Kafka
import LocalBroker
import Logging
import Payments
import PipelineTopics

/// What a payments worker's restart costs as the ledger grows: for each ledger
/// size, a signed ledger of that many events over --users users, dated over
/// --days days up to now, is written to fresh topics; then the payments worker
/// (its own process, as production runs it) is started cold (no snapshot: it
/// reads every ledger partition it owns), stopped with SIGTERM (it leaves a
/// snapshot of each partition), started again (the restart: snapshot plus
/// tail), and finally run as two instances in one group, each owning half of
/// the partitions. Ends with one JSON line.
struct RestartBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Payments worker restart time and memory as the ledger grows (snapshot plus tail).",
        discussion: """
            Restart time is process start to the worker's "state restored for the assigned partitions" line \
            naming all --partitions partitions (group join included). RSS is VmRSS once restored. The half \
            measurement starts a second instance in the same group next to a restored one and waits until \
            each has restored its half; half_rss_ratio is the mean of their RSS over the RSS of the one that \
            owned all.

            The ledger: one account and one deposit per user, then transfers of 1 CNY between users (a hold \
            and a post on the payer's partition, a credit on the payee's), dated evenly over --days days \
            ending now, signed with the payments stage's key. The worker remembers decided transfers for \
            --horizon (its idempotency horizon), so what it holds is the users' balances plus the last \
            horizon's transfers, not the whole history.

            JSON keys, per ledger size N: cold_start_ms_N, restart_ms_N, rss_mb_N, rss_half_mb_N, \
            half_rss_ratio_N, write_s_N (writing the ledger); and restart_ratio (largest N over smallest).
            """)

    @Option(help: "Ledger sizes in events, comma-separated.") var events = "100000,1000000"
    @Option(help: "Users with an account.") var users = 10_000
    @Option(help: "Partitions per user-keyed topic.") var partitions = 12
    @Option(
        help:
            "Days the ledger's events are spread over, ending now. The default, under the 24 h horizon, keeps every transfer in memory: the worst case."
    ) var days = 0.9
    @Option(help: "The payments worker's idempotency horizon (INTENT_IDEMPOTENCY_HORIZON).") var horizon = "24h"
    @Option(help: "Directory of the worker executables. Default: this executable's directory.")
    var binDir: String?

    func run() async throws {
        let sizes = events.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 >= users * 2 + 3 }) else {
            throw ValidationError("--events: sizes of at least 2 x --users + 3, comma-separated, got \(events)")
        }
        var logger = Logger(label: "intent-bench")
        logger.logLevel = .warning
        let broker = try await LocalBroker.start()
        let binaries = binDir.map { URL(fileURLWithPath: $0) } ?? PipelineBenchmark.ownDirectory
        var report: [(String, Double)] = []
        do {
            for size in sizes {
                report += try await measure(size, broker: broker, binaries: binaries, logger: logger)
            }
        } catch {
            await broker.stop()
            throw error
        }
        await broker.stop()
        if sizes.count > 1, let smallest = sizes.min(), let largest = sizes.max(),
            let first = report.first(where: { $0.0 == "restart_ms_\(smallest)" })?.1,
            let last = report.first(where: { $0.0 == "restart_ms_\(largest)" })?.1
        {
            report.append(("restart_ratio", last / first))
        }
        print("{" + report.map { "\"\($0.0)\": \(PipelineBenchmark.format($0.1))" }.joined(separator: ", ") + "}")
    }

    private func measure(_ size: Int, broker: LocalBroker, binaries: URL, logger: Logger) async throws -> [(
        String, Double
    )] {
        let client = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "intent-bench")
        let topics = PipelineTopics(prefix: "restart-\(UUID().uuidString.prefix(8)).")
        let admin = try KafkaAdminClient(configuration: client, logger: logger)
        try await admin.createTopics(topics.specifications(partitions: partitions))
        await admin.close()
        let load = PipelineLoad(users: 2)
        let written = ContinuousClock.now
        try await BenchLedger(users: users, days: days).write(
            size, topics: topics, keys: load.stageKeys, client: client, logger: logger)
        let writeSeconds = (ContinuousClock.now - written).seconds
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "intent-bench-restart-\(UUID().uuidString.prefix(8))")
        let launcher = try load.launcher(
            broker: broker.bootstrapServers, topics: topics, directory: directory, binaries: binaries,
            environment: ["INTENT_IDEMPOTENCY_HORIZON": horizon, "INTENT_SNAPSHOT_INTERVAL": "1h"])
        let all = Set(Int32(0)..<Int32(partitions))

        // Cold: no snapshot, every owned ledger partition read from its beginning.
        let cold = try BenchWorker(name: "payments", launcher: launcher, arguments: [], logDirectory: directory)
        let coldStart = try await cold.restored(all)
        await cold.stop(grace: .seconds(120))
        // Warm: the snapshots the cold run left at SIGTERM, plus nothing after them.
        let warm = try BenchWorker(name: "payments", launcher: launcher, arguments: [], logDirectory: directory)
        let restart = try await warm.restored(all)
        let fullRSS = warm.rssMiB
        // Half: a second instance joins; each ends up owning half the partitions.
        let second = try BenchWorker(name: "payments", launcher: launcher, arguments: [], logDirectory: directory)
        try await waitForHalves(warm, second)
        let halves = [warm.rssMiB, second.rssMiB]
        // The first keeps running after giving half away (a member that went on deciding for
        // partitions it had given up was fenced by the new owner's claim, and stopped).
        for (name, worker) in [("first", warm), ("second", second)] where !worker.process.isRunning {
            throw BenchFailure("the \(name) instance stopped after the split: \(worker.process.logTail())")
        }
        await second.stop(grace: .seconds(120))
        await warm.stop(grace: .seconds(120))
        // The workers' logs and key files matter only when a run fails (then they stay).
        try? FileManager.default.removeItem(at: directory)
        let half = halves.reduce(0, +) / Double(halves.count)
        print(
            "ledger of \(size) events: written in \(PipelineBenchmark.format(writeSeconds)) s; cold start \(coldStart.milliseconds) ms, restart \(restart.milliseconds) ms; RSS \(PipelineBenchmark.format(fullRSS)) MiB owning all, \(halves.map(PipelineBenchmark.format)) MiB owning half"
        )
        return [
            ("write_s_\(size)", writeSeconds), ("cold_start_ms_\(size)", Double(coldStart.milliseconds)),
            ("restart_ms_\(size)", Double(restart.milliseconds)), ("rss_mb_\(size)", fullRSS),
            ("rss_half_mb_\(size)", half), ("half_rss_ratio_\(size)", half / fullRSS),
        ]
    }

    /// Until both instances have restored disjoint halves of the partitions.
    private func waitForHalves(_ first: BenchWorker, _ second: BenchWorker) async throws {
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            let owned = (first.restoredPartitions, second.restoredPartitions)
            if owned.0.count + owned.1.count == partitions, owned.0.isDisjoint(with: owned.1), !owned.0.isEmpty,
                !owned.1.isEmpty
            {
                return
            }
            // Polling log files other processes write: there is no event to await.
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchFailure("the two instances never split the partitions: \(second.process.logTail())")
    }
}

extension BenchWorker {
    /// The partitions named by the worker's latest "state restored for the assigned partitions" line.
    var restoredPartitions: Set<Int32> {
        (try? String(contentsOf: process.logFile, encoding: .utf8)).map(Self.restoredPartitions(in:)) ?? []
    }

    static func restoredPartitions(in text: String) -> Set<Int32> {
        guard
            let line = text.split(separator: "\n").last(where: {
                $0.contains("state restored for the assigned partitions")
            }),
            let open = line.range(of: "partitions=["),
            let close = line[open.upperBound...].firstIndex(of: "]")
        else { return [] }
        return Set(
            line[open.upperBound..<close].split(separator: ",").compactMap {
                Int32($0.trimmingCharacters(in: .whitespaces))
            })
    }

    /// Waits until the worker has restored exactly `partitions`: the time since launch.
    func restored(_ partitions: Set<Int32>, timeout: Duration = .seconds(600)) async throws -> Duration {
        try await waitForLog("restored \(partitions.sorted())", timeout: timeout) {
            Self.restoredPartitions(in: $0) == partitions
        }
    }

    func stop(grace: Duration) async { await process.stop(grace: grace) }
}

extension Duration {
    var milliseconds: Int { Int(seconds * 1000) }
}
