import Telemetry
import Testing

/// What `/health` and `/ready` answer, from what the worker reported.
@Suite("Worker health and readiness")
struct WorkerHealthTests {
    @Test("ready only once state is restored, the loop runs, partitions are assigned and a broker is up")
    func readiness() {
        let health = WorkerHealth()
        health.needsState()
        #expect(health.readiness().reasons == ["restoring state", "not consuming yet", "no partitions assigned"])
        health.stateRestored()
        health.loopTurned()
        #expect(health.readiness().reasons == ["no partitions assigned"])
        health.assigned(partitions: 3)
        #expect(health.readiness().ok && health.readiness().reasons.isEmpty)
        health.broker(up: false)
        #expect(health.readiness().reasons == ["no broker reachable"])
        health.broker(up: true)
        health.assigned(partitions: 0)
        #expect(!health.readiness().ok, "a member whose partitions all moved away takes no traffic")
        health.assigned(partitions: 1)
        health.stopping()
        #expect(health.readiness().reasons == ["shutting down"])
        #expect(health.liveness().ok, "shutting down is not dead")
    }

    @Test("alive while starting and while the loop turns; dead once it stands still past the limit")
    func liveness() {
        let health = WorkerHealth(stallLimit: .seconds(30))
        let start = ContinuousClock.now
        #expect(health.liveness(at: start + .seconds(3600)).ok, "restoring state before the first turn is alive")
        health.loopTurned(at: start)
        #expect(health.liveness(at: start + .seconds(29)).ok)
        let stalled = health.liveness(at: start + .seconds(31))
        #expect(!stalled.ok)
        #expect(stalled.reasons.first?.hasPrefix("the consume loop has not turned for 31") == true)
    }
}
