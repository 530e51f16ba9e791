import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import Kafka

/// `intentctl events sign` and `verify`: what a producer must send, computed
/// by the pipeline's own code, so a voice-service team can check its client
/// against it byte for byte (docs/producers.md).
extension EventsCommand {
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each event of standard input as it must be published: canonical bytes, key and headers.",
            discussion: """
                Reads one JSON envelope per line (any key order, any whitespace, times with any number of \
                fraction digits). For each, prints one JSON line: "value" (the canonical envelope, the exact \
                record value), "key" (the user id, the record key), "headers" (content-type, intent-signature, \
                intent-key-id) and "partition" when --partitions is given (murmur2 of the key, as Kafka's Java \
                client and the workers use). Signs with the last key of the event's source.
                """)
        @OptionGroup var sourceKeys: SourceKeyOptions
        @Option(help: "Also print the partition of each record for a topic with this many partitions.")
        var partitions: Int?

        func run() throws {
            let keys = try sourceKeys.authenticator()
            var number = 0
            while let line = readLine(strippingNewline: true) {
                number += 1
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                let event: EventEnvelope
                do {
                    event = try EventEnvelope.decode(Array(line.utf8))
                } catch {
                    throw ValidationError("line \(number): \(error)")
                }
                let canonical = event.encoded()
                guard let signature = keys.signature(forCanonical: canonical, source: event.source) else {
                    throw ValidationError("line \(number): no key for source \(event.source) in the source keys")
                }
                var headers: [String: JSONValue] = [
                    "content-type": .string("application/cloudevents+json"),
                    EventSignature.header: .string(signature.hex),
                    EventSignature.keyIDHeader: .string(signature.keyID ?? ""),
                ]
                // A contacts service's record also carries its view signature, for the app state (ViewKey).
                if let view = keys.viewSignature(forCanonical: canonical, source: event.source) {
                    headers[EventSignature.viewHeader] = .string(view.hex)
                    headers[EventSignature.viewKeyIDHeader] = .string(view.keyID ?? "")
                }
                var object: [String: JSONValue] = [
                    "value": .string(String(decoding: canonical, as: UTF8.self)), "key": .string(event.userID),
                    "headers": .object(headers),
                ]
                if let partitions {
                    object["partition"] = .integer(
                        Int64(KafkaPartitioner.partition(forKey: event.userID, partitions: partitions)))
                }
                output(String(decoding: CanonicalJSON.encode(JSONValue.object(object)), as: UTF8.self))
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a producer's signature: prints what the pipeline would say, exits 1 when it refuses.",
            discussion: """
                Give the event as a JSON line on standard input and the header values with --signature (and \
                --key-id). Prints "ok: signed by SOURCE with key KEYID", or the reason the pipeline would \
                dead-letter the event (dlq-reason and message), with the canonical bytes that were expected to \
                be signed.
                """)
        @OptionGroup var sourceKeys: SourceKeyOptions
        @Option(help: "The intent-signature header: lowercase hex HMAC-SHA256.") var signature: String
        @Option(help: "The intent-key-id header, if sent.") var keyID: String?

        func run() throws {
            let keys = try sourceKeys.authenticator()
            guard let line = readLine(strippingNewline: true) else {
                throw ValidationError("no event on standard input")
            }
            do {
                let bytes = Array(line.utf8)
                let event = try EventEnvelope.decode(bytes)
                do {
                    try keys.verify(event, received: bytes, signature: EventSignature(keyID: keyID, hex: signature))
                } catch {
                    output("refused: \(error.reason.rawValue): \(error.message)")
                    output("expected the signature over: \(String(decoding: event.encoded(), as: UTF8.self))")
                    throw ExitCode(1)
                }
                output("ok: signed by \(event.source)\(keyID.map { " with key \($0)" } ?? "")")
            } catch let error as EventDecodingError {
                output("refused: \(error.reason.rawValue): \(error)")
                throw ExitCode(1)
            }
        }
    }
}
