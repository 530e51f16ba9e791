/// How a client authenticates and encrypts its broker connections.
///
/// Typed because getting TLS and SASL settings subtly wrong is a common cause of
/// "works locally, hangs in production"; anything not modelled here can still be
/// set through ``KafkaConfiguration/properties``.
public enum KafkaSecurity: Sendable, Hashable {
    case plaintext
    case tls(KafkaTLS)
    case sasl(KafkaSASL, tls: KafkaTLS?)

    var properties: [String: String] {
        switch self {
        case .plaintext:
            return ["security.protocol": "plaintext"]
        case .tls(let tls):
            return tls.properties.merging(["security.protocol": "ssl"]) { $1 }
        case .sasl(let sasl, let tls):
            var result = sasl.properties
            if let tls {
                result.merge(tls.properties) { $1 }
                result["security.protocol"] = "sasl_ssl"
            } else {
                result["security.protocol"] = "sasl_plaintext"
            }
            return result
        }
    }
}

/// TLS trust and identity, as file paths or inline PEM.
public struct KafkaTLS: Sendable, Hashable {
    /// CA bundle that signs the brokers' certificates; nil trusts the system store.
    public var caLocation: String?
    /// Inline PEM alternative to ``caLocation``.
    public var caPEM: String?
    /// Client certificate for mutual TLS.
    public var certificateLocation: String?
    public var keyLocation: String?
    public var keyPassword: String?
    /// Check the broker certificate against the trusted CAs. Disable only in tests.
    public var verifyCertificate: Bool
    /// Check the broker host name against its certificate (`https`) or not (`none`).
    public var verifyHostname: Bool

    public init(
        caLocation: String? = nil, caPEM: String? = nil, certificateLocation: String? = nil,
        keyLocation: String? = nil, keyPassword: String? = nil, verifyCertificate: Bool = true,
        verifyHostname: Bool = true
    ) {
        self.caLocation = caLocation
        self.caPEM = caPEM
        self.certificateLocation = certificateLocation
        self.keyLocation = keyLocation
        self.keyPassword = keyPassword
        self.verifyCertificate = verifyCertificate
        self.verifyHostname = verifyHostname
    }

    var properties: [String: String] {
        var result: [String: String] = [
            "enable.ssl.certificate.verification": verifyCertificate ? "true" : "false",
            "ssl.endpoint.identification.algorithm": verifyHostname ? "https" : "none",
        ]
        result["ssl.ca.location"] = caLocation
        result["ssl.ca.pem"] = caPEM
        result["ssl.certificate.location"] = certificateLocation
        result["ssl.key.location"] = keyLocation
        result["ssl.key.password"] = keyPassword
        return result
    }
}

/// SASL credentials.
public struct KafkaSASL: Sendable, Hashable {
    public enum Mechanism: String, Sendable, Hashable {
        case plain = "PLAIN"
        case scramSHA256 = "SCRAM-SHA-256"
        case scramSHA512 = "SCRAM-SHA-512"
    }

    public var mechanism: Mechanism
    public var username: String
    public var password: String

    public init(mechanism: Mechanism, username: String, password: String) {
        self.mechanism = mechanism
        self.username = username
        self.password = password
    }

    var properties: [String: String] {
        ["sasl.mechanism": mechanism.rawValue, "sasl.username": username, "sasl.password": password]
    }
}
