import IntentCrypto
import Testing

@Suite("OpenSSL digests")
struct DigestTests {
    @Test("SHA-256 matches the FIPS 180-2 test vector")
    func sha256() {
        #expect(
            Digest.hex(Digest.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("HMAC-SHA256 matches RFC 4231 test case 2")
    func hmac() {
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Digest.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("hex writes every byte as two lowercase digits, for arrays and any other sequence")
    func hex() {
        let bytes = (0...255).map(UInt8.init)
        let expected = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(Digest.hex(bytes) == expected)
        #expect(Digest.hex(bytes[1...].lazy.map { $0 }) == String(expected.dropFirst(2)))
        #expect(Digest.hex([UInt8]()).isEmpty)
    }

    @Test("constant-time comparison tells equal from different")
    func compare() {
        #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2]))
    }
}

@Suite("Self-signed certificates")
struct SelfSignedCertificateTests {
    @Test("generates a PEM certificate and key")
    func generate() throws {
        let generated = try SelfSignedCertificate.generate()
        #expect(generated.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(generated.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        // Each call makes a new key.
        #expect(try SelfSignedCertificate.generate().privateKeyPEM != generated.privateKeyPEM)
    }
}
