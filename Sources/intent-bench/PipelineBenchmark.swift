import ArgumentParser
import CKafkaBaseline
import Foundation
import IntentEvents
import IntentWorkers
import Kafka
import LocalBroker
import Logging
import PipelineTopics

/// The whole pipeline's speed in one run on one embedded broker: each worker's
/// throughput as its own process over pre-loaded signed records, next to a raw
/// C relay on the same records; end-to-end latency at fixed offered rates with
/// all four workers running; start-up time and memory. Ends with one JSON line.
struct PipelineBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Workers' throughput against a raw C relay, end-to-end latency, start-up and memory.",
        discussion: """
            Runs the release executables next to this one (intent-resolve, intent-confirm, intent-payments, \
            intent-handle; see --bin-dir) as production does: one process each, configured by the \
            environment, with key files of mode 0600.

            Throughput: pre-loads 1.5 x --records signed intent requests (two in three send-message, one in \
            three send-payment), so that every worker gets at least --records input records: resolve and \
            confirm all of them, handle the messages, payments the proposals plus the users' answers. Each \
            worker then runs alone on its input, which the previous worker produced and signed; its rate is \
            its input records over the time from its first output to its last (broker timestamps), its CPU \
            from /proc/PID/stat between ready and done. The raw C relay (CKafkaBaseline kb_relay) consumes the \
            same requests and produces one record per input with the workers' producer settings, committing \
            after each acknowledged batch.

            Latency: all four workers on fresh topics; for each rate in --rates, --seconds of send-message \
            intents (publish to final response) and then of send-payment intents (confirmation answered as \
            soon as it is asked): p50, p99, p99.9, max, the achieved rate (final responses per second, first to \
            last) and how many were still unanswered after the drain time (8 x --seconds, at least 30 s). \
            Where each round trip's time went, from the producer timestamps on the topics: \
            message_hop_<resolved|confirmed|response>_<p50|p99>_ms_at_<rate>, and for payments \
            payment_hop_<resolved|proposed|asked|answered|posted|response>_... along the path and \
            payment_hop_held_... (the hold, timed from the proposal).

            The last line is one JSON object: resolve_per_s, confirm_per_s, payments_per_s, handle_per_s, \
            relay_per_s, <worker>_ratio_to_relay, <worker>_cpu_s_per_1000, <worker>_startup_ms, \
            <worker>_rss_idle_mb, <worker>_rss_loaded_mb, message_p99_ms_at_<rate>, payment_p99_ms_at_<rate> \
            (and p50, p999, max, achieved_per_s).

            Latency floor: after the latency runs, with the workers stopped, a chain of three raw C relays \
            (librdkafka, the workers' producer and fetch settings, no signatures, state or commits) at each \
            rate gives relay_p50_ms_at_<rate>, relay_p99_ms_at_<rate> and relay_p999_ms_at_<rate>, and one of \
            four relays (a payment's hops: resolve, confirm, the voice service's answer, payments) gives \
            relay4_*; message_p99_ratio_to_relay_at_<rate> and payment_p99_ratio_to_relay4_at_<rate> compare \
            the pipeline with its floor. Defaults: --records 100000, --rates 100,1000,5000, \
            --seconds 5.
            """)

    @Option(help: "Input records per worker, at least (default 100000).") var records = 100_000
    @Option(help: "Offered rates for the latency runs, intents per second, comma-separated.")
    var rates = "100,1000,5000"
    @Option(help: "Seconds of load per rate and intent kind.") var seconds = 5.0
    @Option(help: "Users (each has every other as a contact and an account).") var users = 50
    @Option(help: "Partitions per user-keyed topic.") var partitions = 6
    @Option(help: "Directory of the worker executables. Default: this executable's directory.")
    var binDir: String?

    func run() async throws {
        let result = try await Self.measure(
            records: records, rates: try parsedRates(), seconds: seconds, users: users, partitions: partitions,
            binaries: binDir.map { URL(fileURLWithPath: $0) } ?? Self.ownDirectory)
        print(
            "{" + result.map { "\"\($0.0)\": \(Self.format($0.1))" }.joined(separator: ", ") + "}")
    }

    private func parsedRates() throws -> [Int] {
        let parsed = rates.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw ValidationError("--rates: positive whole numbers, comma-separated, got \(rates)")
        }
        return parsed.compactMap { $0 }
    }

    static var ownDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    static func format(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? String(Int(value.rounded())) : String(format: "%.3f", value)
    }

    static let workers = ["resolve", "confirm", "payments", "handle"]

    /// Every measurement, as (key, value) in report order.
    static func measure(
        records: Int, rates: [Int], seconds: Double, users: Int, partitions: Int, binaries: URL
    ) async throws -> [(String, Double)] {
        var logger = Logger(label: "intent-bench")
        logger.logLevel = .warning
        let broker = try await LocalBroker.start()
        let client = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "intent-bench")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "intent-bench-\(UUID().uuidString.prefix(8))")
        let load = PipelineLoad(users: users)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        var report: [(String, Double)] = []
        do {
            report += try await throughput(
                records: records, partitions: partitions, load: load, client: client, producer: producer,
                broker: broker, binaries: binaries, directory: directory, logger: logger)
            report += try await latency(
                rates: rates, seconds: seconds, partitions: partitions, load: load, client: client,
                producer: producer, broker: broker, binaries: binaries, directory: directory, logger: logger)
        } catch {
            await producer.shutdown()
            await broker.stop()
            throw error
        }
        await producer.shutdown()
        await broker.stop()
        // The workers' logs and key files matter only when a run fails (then they stay).
        try? FileManager.default.removeItem(at: directory)
        return report
    }

    // MARK: Throughput

    private static func throughput(
        records: Int, partitions: Int, load: PipelineLoad, client: KafkaConfiguration, producer: KafkaProducer,
        broker: LocalBroker, binaries: URL, directory: URL, logger: Logger
    ) async throws -> [(String, Double)] {
        let topics = PipelineTopics(prefix: "bench-\(UUID().uuidString.prefix(8)).")
        let relayTopic = topics.prefix + "relay"
        let peerTopic = topics.prefix + "python-peer"
        let admin = try KafkaAdminClient(configuration: client, logger: logger)
        try await admin.createTopics(
            topics.specifications(partitions: partitions)
                + [relayTopic, peerTopic].map { KafkaTopicSpecification(name: $0, partitions: partitions) })
        await admin.close()
        let launcher = try load.launcher(
            broker: broker.bootstrapServers, topics: topics, directory: directory.appendingPathComponent("throughput"),
            binaries: binaries)

        // Two in three requests send a message, one in three a payment: every worker gets >= records inputs.
        let payments = (records + 1) / 2
        let total = payments * 3
        let messages = total - payments
        let seed = load.seed(topics, partitions: partitions)
        _ = try await producer.sendAll(seed.ledger + seed.directories)
        let loadStarted = ContinuousClock.now
        for chunk in stride(from: 0, to: total, by: 10_000) {
            _ = try await producer.sendAll(
                (chunk..<min(total, chunk + 10_000)).map {
                    load.request("t-\($0)", index: $0, payment: $0 % 3 == 2, topics: topics)
                })
        }
        print(
            "pre-loaded \(total) signed requests (\(messages) messages, \(payments) payments) in \(ContinuousClock.now - loadStarted)"
        )

        // The raw C relay over the same requests.
        // With the workers' linger.ms and batch size.
        let linger = Int32(KafkaProducerConfiguration(client: client).linger / .milliseconds(1))
        let batch = Int32(BatchPolicy.standard.maximumBatch)
        let relay = try await onBaselineThread { result, error, length in
            kb_relay(
                broker.bootstrapServers, topics.requested, relayTopic, "relay-\(UUID())", Int64(total), linger, batch,
                30_000, result, error, length)
        }
        let relayPerSecond = Double(relay.messages) / relay.seconds
        let relayCPU = relay.cpu_seconds / Double(relay.messages) * 1000
        print("raw C relay: \(Int(relayPerSecond))/s, \(String(format: "%.3f", relayCPU)) CPU-s per 1,000")

        let tally = try OutputTally(client: client, topics: topics, logger: logger)
        let reading = Task { await tally.run() }
        var report: [(String, Double)] = [("records", Double(records)), ("relay_per_s", relayPerSecond)]
        report.append(("relay_cpu_s_per_1000", relayCPU))
        do {
            let phases: [(String, Phase)] = [
                (
                    "resolve",
                    Phase(
                        input: \.requested, inputs: total, first: [.resolved, .prompt], last: [.resolved, .prompt],
                        expected: total)
                ),
                (
                    "confirm",
                    Phase(
                        input: \.resolved, inputs: total, first: [.confirmed, .confirmationRequest, .response],
                        last: [.confirmed, .confirmationRequest, .response], expected: total)
                ),
                (
                    "payments",
                    Phase(
                        input: \.confirmations, inputs: 2 * payments, first: [.ledger, .response], last: [.response],
                        expected: payments)
                ),
                (
                    "handle",
                    Phase(
                        input: \.confirmed, inputs: messages, first: [.message, .response], last: [.message],
                        expected: messages)
                ),
            ]
            for (worker, phase) in phases {
                if worker == "payments" {
                    // The users' answers, after every proposal, as the voice service would send them.
                    let answers = try tally.confirmationRequests().map { try load.answer(to: $0, topics: topics) }
                    guard answers.count == payments else {
                        throw BenchFailure("\(answers.count) confirmation requests for \(payments) payments")
                    }
                    _ = try await producer.sendAll(answers)
                }
                let measured = try await measureWorker(
                    worker, phase, tally: tally, launcher: launcher,
                    directory: directory.appendingPathComponent("throughput"))
                report += measured.map { ("\(worker)_\($0.0)", $0.1) }
                let perSecond = measured.first { $0.0 == "per_s" }?.1 ?? 0
                report.append(("\(worker)_ratio_to_relay", perSecond / relayPerSecond))
                // The same records again, through the stage a Python team would write.
                let throughputDirectory = directory.appendingPathComponent("throughput")
                let peer = try await PythonStagePeer.run(
                    input: topics[keyPath: phase.input], output: peerTopic, bootstrap: broker.bootstrapServers,
                    keyFiles: ["source-keys", "stage-keys"].map { throughputDirectory.appendingPathComponent($0) },
                    logDirectory: throughputDirectory)
                print(
                    "\(worker) in Python (confluent-kafka): \(peer.records) records, \(Int(peer.per_s))/s, \(String(format: "%.3f", peer.cpu_s_per_1000)) CPU-s per 1,000"
                )
                report += [
                    ("\(worker)_python_per_s", peer.per_s), ("\(worker)_python_cpu_s_per_1000", peer.cpu_s_per_1000),
                    ("\(worker)_ratio_to_python", perSecond / max(peer.per_s, 0.001)),
                ]
            }
            let dead = try tally.added([.deadLetter], since: [:])
            report.append(("dead_letters", Double(dead)))
            if dead > 0 { print("warning: \(dead) records were dead-lettered during the throughput phases") }
        } catch {
            await tally.close()
            reading.cancel()
            throw error
        }
        await tally.close()
        _ = await reading.value
        return report
    }

    /// One worker's throughput phase: which output streams mark its first and last output.
    struct Phase {
        /// The topic the worker reads (its Python peer reads the same).
        var input: KeyPath<PipelineTopics, String>
        var inputs: Int
        var first: [OutputTally.Stream]
        var last: [OutputTally.Stream]
        var expected: Int
    }

    private static func measureWorker(
        _ worker: String, _ phase: Phase, tally: OutputTally, launcher: WorkerLauncher, directory: URL
    ) async throws -> [(String, Double)] {
        let baseline = tally.counts()
        let process = try BenchWorker(
            name: worker, launcher: launcher, arguments: arguments(worker), logDirectory: directory)
        do {
            let startup = try await process.ready()
            let cpuAtReady = process.cpuSeconds
            var done = try tally.added(phase.last, since: baseline)
            var lastProgress = ContinuousClock.now
            while done < phase.expected {
                // Waiting on the tally's reader task and the worker process.
                try await Task.sleep(for: .milliseconds(20))
                let now = try tally.added(phase.last, since: baseline)
                if now > done { lastProgress = ContinuousClock.now }
                done = now
                guard ContinuousClock.now - lastProgress < .seconds(60), process.process.isRunning else {
                    throw BenchFailure(
                        "\(worker): \(done) of \(phase.expected) outputs; log: \(process.process.logTail())")
                }
            }
            let cpu = process.cpuSeconds - cpuAtReady
            let rss = process.rssMiB
            let span = tally.span(first: phase.first, last: phase.last, since: baseline)
            let perSecond = Double(phase.inputs) / max(span.last - span.first, 0.001)
            print(
                "\(worker): \(phase.inputs) inputs, \(Int(perSecond))/s, \(String(format: "%.2f", cpu)) CPU-s, ready in \(startup), RSS \(Int(rss)) MiB"
            )
            await process.stop()
            return [
                ("per_s", perSecond), ("cpu_s_per_1000", cpu / Double(phase.inputs) * 1000),
                ("throughput_startup_ms", startup.seconds * 1000), ("rss_after_throughput_mb", rss),
            ]
        } catch {
            await process.stop()
            throw error
        }
    }

    /// Production's arguments: confirm gives users the longest window, since the
    /// payments phase answers proposals made minutes earlier.
    private static func arguments(_ worker: String) -> [String] {
        worker == "confirm" ? ["--confirmation-window", "600"] : []
    }

    // MARK: Latency

    private static func latency(
        rates: [Int], seconds: Double, partitions: Int, load: PipelineLoad, client: KafkaConfiguration,
        producer: KafkaProducer, broker: LocalBroker, binaries: URL, directory: URL, logger: Logger
    ) async throws -> [(String, Double)] {
        let topics = PipelineTopics(prefix: "latency-\(UUID().uuidString.prefix(8)).")
        let admin = try KafkaAdminClient(configuration: client, logger: logger)
        try await admin.createTopics(topics.specifications(partitions: partitions))
        await admin.close()
        let seed = load.seed(topics, partitions: partitions)
        _ = try await producer.sendAll(seed.ledger + seed.directories)
        let launcher = try load.launcher(
            broker: broker.bootstrapServers, topics: topics, directory: directory.appendingPathComponent("latency"),
            binaries: binaries)
        var report: [(String, Double)] = []
        var processes: [BenchWorker] = []
        let probe = try LatencyProbe(client: client, topics: topics, load: load, logger: logger)
        let probing = Task { await probe.run() }
        do {
            for worker in workers {
                processes.append(
                    try BenchWorker(
                        name: worker, launcher: launcher, arguments: arguments(worker),
                        logDirectory: directory.appendingPathComponent("latency")))
            }
            // Started together, so waited for together: each one's time is its own.
            let startups = try await withThrowingTaskGroup(of: (String, Duration).self) { group in
                for process in processes { group.addTask { (process.name, try await process.ready()) } }
                var startups: [String: Duration] = [:]
                for try await (name, startup) in group { startups[name] = startup }
                return startups
            }
            for process in processes {
                report.append(("\(process.name)_startup_ms", (startups[process.name] ?? .zero).seconds * 1000))
            }
            for process in processes { report.append(("\(process.name)_rss_idle_mb", process.rssMiB)) }
            // One untimed intent of each kind per user through every worker first: connections,
            // partition leaders and every partition's chain tip warm (a worker reads the tip of
            // each partition it first writes to back from the topic, which takes a fetch: with one
            // warm intent, the first intent of each other partition paid it, and was the p99).
            for (label, payment) in [("warm-m", false), ("warm-p", true)] {
                _ = try await probe.measure(
                    label: label, payment: payment, rate: load.users.count, seconds: 1, drain: .seconds(30))
            }
            // What waiting costs: the workers and the broker with every worker idle, over 3 s
            // (fetch.wait.max.ms decides how often each idle consumer asks the broker), the
            // probe's own reader paused. After the warm-up (before it, the stage consumers may
            // not have their partitions yet, and nothing fetches), and followed by one more
            // untimed second of messages, so that the timed runs start with the reader fetching.
            let brokerPIDs = broker.processes.map(\.pid)
            func cpu() -> (broker: Double, workers: Double) {
                (
                    brokerPIDs.map(BenchWorker.cpuSeconds(of:)).reduce(0, +),
                    processes.map(\.cpuSeconds).reduce(0, +)
                )
            }
            let (idleStart, idleEnd) = try await probe.withReaderPaused {
                let start = cpu()
                try await Task.sleep(for: .seconds(3))  // a measurement window, not synchronization
                return (start, cpu())
            }
            report.append(("idle_broker_cpu_pct", (idleEnd.broker - idleStart.broker) / 3 * 100))
            report.append(("idle_workers_cpu_pct", (idleEnd.workers - idleStart.workers) / 3 * 100))
            _ = try await probe.measure(
                label: "warm-again", payment: false, rate: load.users.count, seconds: 1, drain: .seconds(30))
            for rate in rates {
                for payment in [false, true] {
                    let kind = payment ? "payment" : "message"
                    let result = try await probe.measure(
                        label: "\(kind)-\(rate)", payment: payment, rate: rate, seconds: seconds,
                        drain: .seconds(max(30, Int64(seconds * 8))))
                    print(
                        "\(kind) at \(rate)/s offered: \(result.completed)/\(result.published) answered, achieved \(Int(result.achievedPerSecond))/s, p50 \(format(result.p50)) ms, p99 \(format(result.p99)) ms, p99.9 \(format(result.p999)) ms, max \(format(result.max)) ms"
                    )
                    // Where the round trip's time went, hop by hop.
                    let ids = Set((0..<max(1, Int(Double(rate) * seconds))).map { "\(kind)-\(rate)-\($0)" })
                    for (key, value) in try await HopTimes.measure(
                        payment ? HopTimes.payment(topics) : HopTimes.message(topics), intents: ids, client: client,
                        logger: logger)
                    {
                        report.append(("\(kind)_\(key)_at_\(rate)", value))
                    }
                    report += [
                        ("\(kind)_p50_ms_at_\(rate)", result.p50), ("\(kind)_p99_ms_at_\(rate)", result.p99),
                        ("\(kind)_p999_ms_at_\(rate)", result.p999), ("\(kind)_max_ms_at_\(rate)", result.max),
                        ("\(kind)_achieved_per_s_at_\(rate)", result.achievedPerSecond),
                        ("\(kind)_unanswered_at_\(rate)", Double(result.published - result.completed)),
                        ("\(kind)_request_ack_p50_ms_at_\(rate)", result.acknowledgementP50),
                        ("\(kind)_request_ack_p99_ms_at_\(rate)", result.acknowledgementP99),
                    ]
                }
            }
            for process in processes { report.append(("\(process.name)_rss_loaded_mb", process.rssMiB)) }
        } catch {
            for process in processes { await process.stop() }
            await probe.close()
            throw error
        }
        for process in processes { await process.stop() }
        await probe.close()
        _ = await probing.value
        // The floor under those figures, with the workers stopped: chains of raw C relays.
        for rate in rates {
            for (hops, kind, key) in [(3, "message", "relay"), (4, "payment", "relay4")] {
                let chain = try await RelayChain.measure(
                    hops: hops, rate: rate, seconds: seconds, partitions: partitions, client: client, logger: logger)
                print(
                    "\(hops) raw C relays at \(rate)/s offered: \(chain.read)/\(chain.offered) read, p50 \(format(chain.p50)) ms, p99 \(format(chain.p99)) ms, p99.9 \(format(chain.p999)) ms"
                )
                report += [
                    ("\(key)_p50_ms_at_\(rate)", chain.p50), ("\(key)_p99_ms_at_\(rate)", chain.p99),
                    ("\(key)_p999_ms_at_\(rate)", chain.p999),
                ]
                if let workers = report.first(where: { $0.0 == "\(kind)_p99_ms_at_\(rate)" })?.1, chain.p99 > 0 {
                    report.append(("\(kind)_p99_ratio_to_\(key)_at_\(rate)", workers / chain.p99))
                }
            }
        }
        return report
    }
}
