import BrokerTestSupport
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Kafka
import PipelineTopics
import Testing

/// `intentctl settings set`: what a settings service publishes, on the user's partition,
/// signed, and refused with a clear message when it would not be accepted.
@Suite("intentctl settings set", .heavyTimeLimit(minutes: 3))
struct SettingsCommandTests {
    @Test("publishes a signed user.settings.v1 the resolve worker accepts; a bad tag or a voice source is refused")
    func publishes() async throws {
        try await withBroker { broker in
            let directory = testFileURL(uniqueName("settings"))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let keys = EventAuthenticator(keys: ["/settings/ops": Array(repeating: 0x44, count: 32)])
            let keyFile = directory.appendingPathComponent("source-keys")
            try keys.keyFileText.write(to: keyFile, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            let prefix = uniqueName("settings") + "."
            let environment = ["INTENT_TOPIC_PREFIX": prefix, "INTENT_SOURCE_KEYS_FILE": keyFile.path]
            let provisioned = try await OperatorCommandTests.run(
                broker, ["topics", "provision", "--partitions", "3", "--replication-factor", "1"],
                environment: environment)
            #expect(provisioned.status == 0, "\(provisioned.output)")

            let set = try await OperatorCommandTests.run(
                broker,
                [
                    "settings", "set", "--user", "boris", "--locale", "ru-RU", "--source", "/settings/ops", "--version",
                    "5",
                ],
                environment: environment)
            #expect(set.status == 0, "\(set.output)")
            // Without --version: the time in milliseconds, so a later run supersedes an earlier one.
            let started = RecordVersion.fromClock()
            let reset = try await OperatorCommandTests.run(
                broker, ["settings", "set", "--user", "boris", "--reset", "--source", "/settings/ops"],
                environment: environment)
            #expect(reset.status == 0, "\(reset.output)")
            let zero = try await OperatorCommandTests.run(
                broker,
                ["settings", "set", "--user", "boris", "--reset", "--source", "/settings/ops", "--version", "0"],
                environment: environment)
            #expect(zero.status != 0)
            #expect(zero.output.contains("--version must be 1 or more"), "\(zero.output)")
            let badTag = try await OperatorCommandTests.run(
                broker, ["settings", "set", "--user", "boris", "--locale", "ru RU", "--source", "/settings/ops"],
                environment: environment)
            #expect(badTag.status != 0)
            #expect(badTag.output.contains("--locale must be a BCP 47 tag"), "\(badTag.output)")
            let voice = try await OperatorCommandTests.run(
                broker, ["settings", "set", "--user", "boris", "--locale", "ru-RU", "--source", "/voice/ops"],
                environment: environment)
            #expect(voice.status != 0)
            #expect(voice.output.contains("--source must start with /settings/"), "\(voice.output)")

            var records: [UserSettingsRecord] = []
            var partitions: [Int32] = []
            try await TopicReader.forEachRecord(
                of: prefix + "users.settings", configuration: clientConfiguration(broker), logger: testLogger
            ) { message in
                partitions.append(message.partition)
                records.append(try UserSettingsRecord.decode(message, authenticator: keys))
            }
            #expect(records.count == 2)
            #expect(records.first == .set(userID: "boris", settings: UserSettings(locale: "ru-RU"), version: 5))
            if case .reset(let user, let version) = records.last {
                #expect(user == "boris")
                #expect(version >= started && version <= RecordVersion.fromClock(), "\(version)")
            } else {
                Issue.record("expected a reset, got \(records)")
            }
            #expect(
                partitions == Array(repeating: KafkaPartitioner.partition(forKey: "boris", partitions: 3), count: 2))
        }
    }
}
