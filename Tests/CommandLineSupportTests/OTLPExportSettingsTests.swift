import CommandLineSupport
import Foundation
import Testing

/// OpenTelemetry's own variables configure trace export as in every other SDK
/// (issue 31, point 7); the project's flag and variable still win.
@Suite("OTLP export settings from the flag and OpenTelemetry's variables")
struct OTLPExportSettingsTests {
    func resolve(_ environment: [String: String], flag: String? = nil) throws -> OTLPExportSettings? {
        try OTLPExportSettings.resolve(flag: flag, environment: environment, defaultServiceName: "intent-resolve")
    }

    @Test("nothing configured: no export")
    func off() throws {
        #expect(try resolve([:]) == nil)
    }

    @Test("OTEL_EXPORTER_OTLP_ENDPOINT is a base: /v1/traces is appended, with or without a trailing slash")
    func baseEndpoint() throws {
        #expect(
            try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"])?.endpoint.absoluteString
                == "http://collector:4318/v1/traces")
        #expect(
            try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"])?.endpoint.absoluteString
                == "http://collector:4318/v1/traces")
    }

    @Test("the traces endpoint is taken as it is, and the project's variable and the flag win, in that order")
    func precedence() throws {
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://base:4318",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:4318/custom",
        ]
        #expect(try resolve(environment)?.endpoint.absoluteString == "http://traces:4318/custom")
        var withProject = environment
        withProject["INTENT_OTLP_ENDPOINT"] = "http://project:4318/v1/traces"
        #expect(try resolve(withProject)?.endpoint.absoluteString == "http://project:4318/v1/traces")
        #expect(
            try resolve(withProject, flag: "http://flag:4318/v1/traces")?.endpoint.absoluteString
                == "http://flag:4318/v1/traces")
    }

    @Test("the service is named by OTEL_SERVICE_NAME, else service.name of OTEL_RESOURCE_ATTRIBUTES, else the program")
    func serviceName() throws {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        #expect(try resolve(endpoint)?.serviceName == "intent-resolve")
        var attributes = endpoint
        attributes["OTEL_RESOURCE_ATTRIBUTES"] = "deployment.environment=prod, service.name=resolve-eu"
        #expect(try resolve(attributes)?.serviceName == "resolve-eu")
        attributes["OTEL_SERVICE_NAME"] = "resolve-eu-1"
        #expect(try resolve(attributes)?.serviceName == "resolve-eu-1")
    }

    @Test("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn export off")
    func disabled() throws {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        #expect(try resolve(endpoint.merging(["OTEL_SDK_DISABLED": "true"]) { $1 }) == nil)
        #expect(try resolve(endpoint.merging(["OTEL_TRACES_EXPORTER": "none"]) { $1 }) == nil)
    }

    @Test("gRPC and endpoints that are not http(s) URLs are refused with the reason")
    func refused() {
        #expect(throws: OTLPExportSettings.Invalid.self) {
            try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
        }
        #expect(throws: OTLPExportSettings.Invalid.self) {
            try resolve(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "collector:4318"])
        }
    }
}
