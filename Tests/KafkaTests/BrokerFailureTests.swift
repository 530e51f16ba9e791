import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Testing

/// What clients do when no broker answers. The local broker's own durability
/// (restarts on its S3 storage) is `BrokerDurabilityTests`, outside the default suite.
@Suite("Broker failures")
struct BrokerFailureTests {
    @Test("an unreachable broker gives a clear error within bounded time, never a hang")
    func unreachableBroker() async throws {
        // Held for the whole test, so no broker another test starts can take the port.
        let nobody = try ReservedPort()
        let configuration = KafkaConfiguration(
            bootstrapServers: ["127.0.0.1:\(nobody.port)"], connectionSetupTimeout: .seconds(2),
            requestTimeout: .seconds(3))
        let admin = try KafkaAdminClient(configuration: configuration, logger: testLogger)
        let started = ContinuousClock.now
        do {
            try await admin.checkConnectivity()
            Issue.record("connected to a port nobody listens on")
        } catch {
            #expect(error.code.isConnectivity, "\(error)")
            #expect(error.description.contains("fetch cluster metadata"))
        }
        // The promise: a clear error within the request timeout (3 s here; the connection
        // setup timeout is shorter), never a hang. 10.07 s and 17.3 s were seen on loaded machines
        // (load average 7-9 on 2 cores, four builds beside the suite), so the bound is 20x the
        // request timeout: a hang still fails, a busy machine does not.
        #expect(ContinuousClock.now - started < .seconds(60))
        await admin.close()
        withExtendedLifetime(nobody) {}
    }
}
