import IntentCrypto
import Testing

/// The allocation-free entry points a worker uses per record (``HMACKey/hexAuthenticate(_:)``,
/// ``HMACKey/verifies(_:hex:)``, ``Digest/hexSHA256(_:)``) against RFC 4231 and FIPS 180-2's
/// published values, and what a verifier must refuse.
@Suite("HMAC keys: hex MACs and verification without allocation")
struct HMACKeyVerifyTests {
    /// RFC 4231 test case 2.
    static let key = HMACKey(Array("Jefe".utf8))
    static let message = Array("what do ya want for nothing?".utf8)
    static let mac = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"

    func verifies(_ hex: String, _ message: [UInt8] = message) -> Bool {
        var hex = hex
        return hex.withUTF8 { Self.key.verifies(message, hex: $0) }
    }

    @Test("the hex MAC is RFC 4231's, and SHA-256's hex is FIPS 180-2's")
    func hexForms() {
        #expect(Self.key.hexAuthenticate(Self.message) == Self.mac)
        #expect(
            Digest.hexSHA256(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("the right MAC verifies, in either case; another digit, length or message does not")
    func verification() {
        #expect(verifies(Self.mac))
        #expect(verifies(Self.mac.uppercased()))
        #expect(!verifies("6" + Self.mac.dropFirst()))
        #expect(!verifies(String(Self.mac.dropLast())))
        #expect(!verifies(Self.mac + "0"))
        #expect(!verifies(""))
        #expect(!verifies(Self.mac, Array("what do ya want for nothing!".utf8)))
    }
}
