internal import COpenSSL

/// A self-signed TLS certificate and its private key, in PEM, made with
/// OpenSSL: for tests and local brokers that need TLS without a CA.
public struct SelfSignedCertificate: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String

    /// A P-256 key and a certificate valid for `days`, naming the loopback
    /// addresses and host names given as subject alternative names.
    public static func generate(
        commonName: String = "localhost",
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1"],
        days: Int = 2
    ) throws(CryptoError) -> SelfSignedCertificate {
        let key = try generateKey()
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw .fromQueue("X509_new") }
        defer { X509_free(certificate) }

        try CryptoError.check(X509_set_version(certificate, 2), "set certificate version")
        var serial = [UInt8](repeating: 0, count: 8)
        try CryptoError.check(RAND_bytes(&serial, Int32(serial.count)), "random serial")
        let serialValue = serial.reduce(0) { ($0 << 8) | Int($1) } & Int(Int32.max)
        try CryptoError.check(ASN1_INTEGER_set(X509_get_serialNumber(certificate), serialValue), "set serial")
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -60) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400) != nil
        else { throw .fromQueue("set validity") }
        try CryptoError.check(X509_set_pubkey(certificate, key), "set public key")

        let name = X509_get_subject_name(certificate)
        // MBSTRING_ASC: the common name is plain ASCII.
        let mbstringASCII: Int32 = 0x1000 | 1
        try CryptoError.check(
            X509_NAME_add_entry_by_txt(name, "CN", mbstringASCII, commonName, -1, -1, 0), "set common name")
        try CryptoError.check(X509_set_issuer_name(certificate, name), "set issuer")

        let alternativeNames = (dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }).joined(separator: ",")
        if !alternativeNames.isEmpty {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let extensionValue = X509V3_EXT_conf_nid(nil, &context, NID_subject_alt_name, alternativeNames) else {
                throw .fromQueue("build subjectAltName")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            try CryptoError.check(X509_add_ext(certificate, extensionValue, -1), "add subjectAltName")
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw .fromQueue("sign certificate") }

        let certificatePEM = try pem("write certificate") { PEM_write_bio_X509($0, certificate) }
        let keyPEM = try pem("write private key") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        return SelfSignedCertificate(certificatePEM: certificatePEM, privateKeyPEM: keyPEM)
    }

    private static func generateKey() throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw .fromQueue("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        try CryptoError.check(EVP_PKEY_keygen_init(context), "key generation init")
        try CryptoError.check(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1), "choose P-256")
        var key: OpaquePointer?
        try CryptoError.check(EVP_PKEY_keygen(context, &key), "generate key")
        guard let key else { throw .fromQueue("generate key") }
        return key
    }

    /// Runs a PEM writer against a memory BIO and returns what it wrote.
    private static func pem(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .fromQueue(operation) }
        defer { BIO_free(bio) }
        try CryptoError.check(write(bio), operation)
        var data: UnsafeMutablePointer<CChar>?
        // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO).
        let length = withUnsafeMutablePointer(to: &data) { BIO_ctrl(bio, BIO_CTRL_INFO, 0, $0) }
        guard length > 0, let data else { throw .fromQueue(operation) }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
