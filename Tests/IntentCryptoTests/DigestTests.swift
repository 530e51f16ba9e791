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

    @Test("HMAC-SHA256 matches RFC 4231 test cases 1, 4 and 6 (a key longer than a block is hashed first)")
    func hmacVectors() {
        let cases: [(key: [UInt8], message: [UInt8], mac: String)] = [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array(1...25), [UInt8](repeating: 0xcd, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ]
        for (key, message, mac) in cases {
            #expect(Digest.hex(Digest.hmacSHA256(key: key, message: message)) == mac)
        }
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
