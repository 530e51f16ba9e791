import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Intents

// A quick in-process profile of the resolve stage's per-record work, without
// Kafka: decode + verify + freshness + resolve + encode + sign of N signed
// send-message requests, as the resolve worker does per record. Run it release-built under
// `perf record -g` to see where the time goes:
//
//     swift build -c release --product intent-stage-profile
//     perf record -g -F 499 .build/release/intent-stage-profile 50000
//
// Prints one line: records, seconds, records/s.

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 50_000 : 50_000
let now = Date(timeIntervalSince1970: 1_795_000_000)
let contacts: [Contact] = [
    Contact(id: "xiaoming", displayName: "小明", handles: ["+86 138 0000 0001"], interactionCount: 12),
    Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙", handles: ["+86 138 0000 0002"]),
    Contact(id: "yulia", displayName: "Юлия Щукина", givenName: "Юлия", familyName: "Щукина", handles: ["+7 900 1"]),
    Contact(id: "dmitry", displayName: "Дмитрий Соколов", givenName: "Дмитрий", familyName: "Соколов"),
    Contact(id: "brandon-lee", displayName: "Brandon Lee", handles: ["+1 555 0100"], interactionCount: 2),
    Contact(id: "robert", displayName: "Robert Johnson", givenName: "Robert", familyName: "Johnson"),
]
let names = ["孙波", "Юлия Щукина", "Brandon Lee", "小明", "Robert Johnson"]
let voiceKeys = EventAuthenticator(keys: ["/voice/bench": Array(repeating: 7, count: 32)])
let stageKeys = EventAuthenticator(keys: [PipelineSource.resolve: Array(repeating: 9, count: 32)])
var directory = ContactDirectory()
let users = 1_000
for user in 0..<users {
    for contact in contacts { directory.apply(.upsert(userID: "user-\(user)", contact: contact)) }
}
var records: [(key: String, value: [UInt8], signature: EventSignature?)] = []
records.reserveCapacity(count)
for index in 0..<count {
    let user = "user-\(index % users)"
    let intent = Intent.sendMessage(
        SendMessageIntent(
            recipients: [Person(spoken: names[index % names.count])], content: "on my way / 路上 \(index)"))
    let event = EventEnvelope(
        id: "req-\(index)", source: "/voice/bench", type: IntentRequested.type, time: now,
        dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "conv-\(index)",
        intentID: "intent-\(index)", payload: IntentRequested(turn: 1, intent: intent))
    records.append((user, event.encoded(), voiceKeys.signature(for: event)))
}
var stage = ResolveStage(resolver: IntentResolver(), authenticator: voiceKeys)
let start = ContinuousClock.now
var published = 0
/// PROFILE_PRINT=1 prints every output event, to see how two builds differ.
let printing = ProcessInfo.processInfo.environment["PROFILE_PRINT"] == "1"
var bytes = 0
/// FNV-1a over every signature: equal across builds means byte-identical output.
var digest: UInt64 = 0xcbf2_9ce4_8422_2325
for record in records {
    let output = stage.process(key: record.key, value: record.value, signature: record.signature, now: now) {
        directory.book(for: $0, now: now)
    }
    switch output {
    case .prompt(let event), .resolved(let event):
        let encoded = event.encoded()
        bytes += encoded.count
        if printing { print(String(decoding: encoded, as: UTF8.self)) }
        for byte in stageKeys.signature(forCanonical: encoded, source: event.source)?.hex.utf8 ?? "".utf8 {
            digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        published += 1
    case .ignored(let reason): fatalError("ignored: \(reason)")
    case .rejected(let error), .refused(let error, _): fatalError("rejected: \(error)")
    }
}
let elapsed = ContinuousClock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(
    "records \(count) published \(published) bytes \(bytes) digest \(String(digest, radix: 16)) seconds \(String(format: "%.3f", seconds))",
    "per_s \(Int(Double(count) / seconds))")
