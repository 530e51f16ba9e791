import ContactResolution
import Foundation
import Testing

@Suite("Trimming spoken names")
struct WhitespaceTrimmingTests {
    @Test("gives what Foundation's trimming gives, with and without anything to trim")
    func matchesFoundation() {
        let blanks = ["", " ", "\t", "\n", "\r\n", "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}", "\u{200B}", "\u{FEFF}"]
        let names = ["", "孙波", "Юлия Щукина", "Brandon Lee", "e\u{301}", "😀", "a\u{A0}b", "x"]
        for leading in blanks {
            for name in names {
                for trailing in blanks {
                    let text = leading + name + trailing
                    #expect(
                        text.trimmingWhitespaceAndNewlines == text.trimmingCharacters(in: .whitespacesAndNewlines),
                        "\(text.unicodeScalars.map(\.value))")
                }
            }
        }
    }
}
