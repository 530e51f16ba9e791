import Foundation
import IntentEvents
import Intents
import Messaging
import Testing

/// Message events write their canonical JSON by hand; the bytes must be the
/// ones their `Encodable` form gives through the generic encoder.
@Suite("Message events: hand-written canonical JSON equals the encoder's")
struct MessageEventCanonicalTests {
    static let awkward = ["", "OK", "quote\" back\\slash /slash", "控制\u{01}\u{1F}", "e\u{301} 😀", "\u{2028}\u{7F}"]

    @Test("every kind, every optional present or absent, awkward strings: the same bytes")
    func events() {
        let at = Timestamp(Date(timeIntervalSince1970: 1_795_000_000.25))
        var checked = 0
        for (index, text) in Self.awkward.enumerated() {
            for kind in [MessageEvent.Kind.queued, .delivered, .attributeSet] {
                for full in [true, false] {
                    let event = MessageEvent(
                        id: "m-\(text)", kind: kind, userID: "u-\(text)", intentID: "i-\(index)",
                        messageIDs: full ? [text, "m2"] : [], conversation: full ? text : nil,
                        recipients: full ? [Person(spoken: text, handle: "h", contactID: "c", displayName: text)] : nil,
                        content: full ? text : nil, serviceName: full ? "s" : nil, at: at,
                        dueAt: full ? Timestamp(Date(timeIntervalSince1970: 1_795_000_060)) : nil,
                        attribute: full ? MessageAttribute.allCases[index % 4] : nil, locale: full ? "ru-RU" : nil)
                    var direct: [UInt8] = []
                    event.writeCanonicalJSON(into: &direct)
                    #expect(direct == CanonicalJSON.encode(event), "\(String(decoding: direct, as: UTF8.self))")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.awkward.count * 6)
    }
}
