import IntentResolution
import Intents
import Testing

/// The resolver configuration a decision records (issue 31, point 4): equal for the same
/// currencies, limits and messaging services, different when any of them differs, so a
/// replay can tell decisions made under its configuration from the others.
@Suite("Resolver configuration version")
struct ResolverConfigurationVersionTests {
    @Test("the same configuration, the same version; any difference, another")
    func version() throws {
        let base = IntentResolver()
        #expect(base.configurationVersion == IntentResolver().configurationVersion)
        #expect(base.configurationVersion.count == 16)
        #expect(base.configurationVersion.allSatisfy { "0123456789abcdef".contains($0) })
        let others = [
            IntentResolver(messagingServices: ["sms"]),
            IntentResolver(messagingServices: ["sms", "chat", "satellite"]),
            IntentResolver(amounts: try AmountPolicy.parse("CNY:0.01:50000")),
            IntentResolver(
                amounts: try AmountPolicy.parse(
                    "CNY:0.01:40000,EUR:0.01:10000,GBP:0.01:10000,RUB:1:500000,USD:0.01:10000")
            ),
        ]
        let versions = others.map(\.configurationVersion)
        #expect(!versions.contains(base.configurationVersion), "\(versions)")
        #expect(Set(versions).count == others.count, "\(versions)")
    }
}
