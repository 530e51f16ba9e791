import BrokerTestSupport
import Foundation
import PipelineTestSupport
import StageRuntime
import Testing

/// Exactly-once effects on a real broker with every worker as its own OS
/// process: thousands of intents (half of them payments) while every worker
/// type is killed with SIGKILL at seeded moments and restarted.
@Suite("Exactly-once effects while workers are killed", .heavyTimeLimit(minutes: 20), .longHeavyTest)
struct CrashRecoveryTests {
    @Test("every intent gets exactly one final response; no transfer twice; balances are the sums of their entries")
    func killAndRestart() async throws {
        try await withBroker { broker in
            print(
                "crash test: seed \(LoadFixture.seed) (INTENT_CRASH_TEST_SEED=\(LoadFixture.seed) replays this run)"
            )
            var random = SplitMix64(seed: LoadFixture.seed)
            // The confirm worker also dies between its two publish rounds, once, early in the load:
            // its redo must publish the same proposal and binding it already made durable. A round
            // is a batch, and a confirm worker behind a loaded machine may take the whole load in
            // three or four large ones: the crash comes in the first two, which every run has.
            let crashRound = Int.random(in: 1...2, using: &random)
            let started = ContinuousClock.now
            let run = try await LoadRun.start(
                broker, name: "crash", random: &random,
                firstStartEnvironment: ["confirm": ["INTENT_CRASH_BETWEEN_ROUNDS": String(crashRound)]])
            defer { Task { await run.producer.shutdown() } }
            let (topics, workers, responder, intents, published) = (
                run.topics, run.workers, run.responder, run.intents, run.published
            )
            // Every worker type is killed (SIGKILL), two rounds: eight kills at seeded moments.
            let chaos = Task {
                try await workers.chaos(kills: 2, of: ["payments", "handle", "resolve", "confirm"]) {
                    published.value
                }
            }
            let finals = try await responder.run(until: Set(intents.keys), timeout: .seconds(720))
            try await run.load.value
            let publishedAtKills = try await chaos.value
            await workers.stopAll()
            await responder.close()
            print(
                "crash test (seed \(LoadFixture.seed)): \(intents.count) intents in \(ContinuousClock.now - started); intents published at each kill: \(publishedAtKills); confirm crashed between publish rounds \(workers.selfCrashes(of: "confirm")) time(s) (round \(crashRound))"
            )
            #expect(
                workers.selfCrashes(of: "confirm") >= 1, "the crash point never fired (seed \(LoadFixture.seed))")
            // The kills must land while there is work in flight, not after it.
            #expect(publishedAtKills.filter { $0 < intents.count }.count >= 4, "kills at \(publishedAtKills)")
            #expect(
                finals.count == intents.count, "\(intents.count - finals.count) intents without a final response")
            try await LoadFixture.check(topics: topics, broker: broker, intents: intents)
        }
    }
}
