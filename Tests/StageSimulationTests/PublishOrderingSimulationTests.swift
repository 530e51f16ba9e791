import IntentEvents
import Intents
import Testing

@testable import StageSimulation

/// A stage decides a batch while earlier ones are still being acknowledged; that must not
/// let a notice overtake the state it reports. Here on the in-memory cluster with the
/// real confirm stage, publishes failing (landed or not) as after broker time-outs: at
/// every step, each confirmation request on the prompts topic has its proposal on the
/// confirmations topic already. Seed 6 loses a confirm state round that carries a request
/// (its records not landed, the round failed): a runtime that let that round's notices go
/// anyway fails here. (Moved from the broker suite `PublishOrderingTests`.)
@Suite struct PublishOrderingSimulationTests {
    /// The run, checking after every step: the requests that overtook their proposals, how
    /// many requests were checked, the failed acknowledgements, the invariants' failures.
    static func ordered(seed: UInt64) -> (
        overtaken: [String], checked: Int, failedAcknowledgements: Int, failures: [String]
    ) {
        var scenario = PipelineScenario(seed: seed, intents: 20, faults: true)
        scenario.speak(20)
        var checkedRequests: Set<String> = []
        var overtaken: [String] = []
        var promptCount = 0
        scenario.run(steps: 1000) { world in
            // Only when a prompt was added (decoding the topics at every step would cost the most).
            let prompts = world.cluster.records(of: SimulatedWorld.topics.prompts)
            guard prompts.count > promptCount else { return }
            promptCount = prompts.count
            let proposed = Set(
                world.cluster.records(of: SimulatedWorld.topics.confirmations).compactMap {
                    let event = try? EventEnvelope.decode($0.record.value)
                    return event?.source == PipelineSource.confirm ? event?.intentID : nil
                })
            for (_, record) in prompts {
                guard let event = try? EventEnvelope.decode(record.value), event.type == ConfirmationRequest.type,
                    let intentID = event.intentID, checkedRequests.insert(intentID).inserted
                else { continue }
                if !proposed.contains(intentID) { overtaken.append(intentID) }
            }
        }
        let failedAcknowledgements = scenario.world.report.failedAcknowledgements
        scenario.settle()
        return (overtaken, checkedRequests.count, failedAcknowledgements, scenario.checked().failures)
    }

    @Test("no confirmation request is visible before the proposal it asks about", arguments: [1, 6] as [UInt64])
    func noticeWaitsForItsState(seed: UInt64) async {
        let run = await onOwnThread { Self.ordered(seed: seed) }
        #expect(run.overtaken == [], "seed \(seed): confirmation requests published before their proposals")
        // The property was exercised: requests were asked while publishes failed.
        #expect(run.checked > 3)
        #expect(run.failedAcknowledgements > 0)
        #expect(run.failures == [], "seed \(seed)")
    }
}
