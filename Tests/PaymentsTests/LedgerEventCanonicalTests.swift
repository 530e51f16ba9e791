import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// LedgerEvent writes its canonical JSON by hand (`CanonicalPayload`); the
/// bytes must be the ones its `Encodable` form gives, or every signature and
/// event id over them would change.
@Suite("Ledger events: hand-written canonical JSON equals the encoder's")
struct LedgerEventCanonicalTests {
    static let awkward = [
        "", "alice", "quote\" back\\slash /slash", "控制\u{01}\u{1F}", "Ünïcödé e\u{301}", "😀👩‍👩‍👧", "\u{7F}\u{85}\u{2028}",
    ]

    static var events: [LedgerEvent] {
        var events: [LedgerEvent] = []
        let kinds: [LedgerEvent.Kind] = [
            .accountOpened, .accountClosed, .deposit, .hold, .void, .post, .credit, .requestProposed, .requestCreated,
            .requestReceived, .requestDeclined, .requestPaid, .proposalClosed,
        ]
        for (index, text) in awkward.enumerated() {
            for kind in kinds {
                let full = index % 2 == 0
                events.append(
                    LedgerEvent(
                        id: "e-\(text)-\(kind.rawValue)", kind: kind, userID: text,
                        intentID: full ? "i-\(text)" : nil, transferID: full ? "t-\(text)" : nil,
                        requestID: full ? nil : "r-\(text)",
                        entries: kind == .accountOpened || kind == .accountClosed
                            ? [] : LedgerEntry.move(cny("12.50"), from: "users/\(text)/available", to: "users/x/held"),
                        counterpartyUserID: full ? text : nil, counterpartyContactID: full ? nil : "c-\(text)",
                        counterpartyAccount: text.isEmpty ? nil : text, amount: full ? cny("0.01") : nil,
                        note: full ? text : nil,
                        expiresAt: full ? Timestamp(Date(timeIntervalSince1970: 1_795_000_000.5)) : nil,
                        handles: kind == .accountOpened ? [text, "+1 555 0100"] : nil,
                        verified: kind == .accountOpened ? full : nil,
                        accountVersion: kind == .accountOpened || kind == .accountClosed ? index * 1_000_003 : nil,
                        reason: full ? nil : text,
                        decidedBy: full ? text : nil,
                        decidedAt: full ? nil : Timestamp(Date(timeIntervalSince1970: 1_700_000_000.123))))
            }
        }
        events.append(LedgerEvent(id: "bare", kind: .proposalClosed, userID: "u"))
        events += LedgerEvent.opening(
            userID: "alice", handles: ["a@b"], verified: false, version: 7, deposits: [cny("1000")])
        events.append(LedgerEvent.closing(userID: "alice", version: Int.max))
        return events
    }

    @Test("every kind, every optional present or absent, awkward strings: the same bytes")
    func sameBytes() {
        for event in Self.events {
            var direct: [UInt8] = []
            event.writeCanonicalJSON(into: &direct)
            let encoded = CanonicalJSON.encode(event)
            #expect(direct == encoded, "\(String(decoding: direct, as: UTF8.self))")
        }
    }

    @Test("an envelope built from a ledger event carries those bytes, and they decode back to the event")
    func envelopeRoundTrip() throws {
        // An envelope names its user (the record's key, which must be a valid user id): the
        // awkward strings stay in every other field.
        for var event in Self.events {
            event.userID = "alice"
            let envelope = event.envelope(
                source: PipelineSource.payments, time: Date(timeIntervalSince1970: 1_795_000_000))
            let decoded = try EventEnvelope.decode(envelope.encoded()).decodeData(as: LedgerEvent.self)
            #expect(decoded == event, "\(event.id)")
        }
    }
}
