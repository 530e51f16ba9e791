import Foundation
import PipelineTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a worker's operator endpoints as a kubelet or Prometheus would.
struct OperationsProbe: Sendable {
    let port: Int

    func get(_ path: String) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.timeoutInterval = 10
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// Asks `path` until `found` says yes or `timeout` passes: the endpoints report what the
    /// worker did asynchronously (statistics every interval), so there is no single event to await.
    func eventually<Value>(
        _ path: String, _ what: String, timeout: Duration = .seconds(60),
        _ found: (_ status: Int, _ body: String) -> Value?
    ) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        var last = "nothing"
        while ContinuousClock.now < deadline {
            if let (status, body) = try? await get(path) {
                if let value = found(status, body) { return value }
                last = "\(status): \(body.prefix(2000))"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("timed out waiting for \(what) at \(path); last answer \(last)")
    }
}

/// Samples of a Prometheus text exposition: `name{label="value",…} number` lines.
struct PrometheusSamples {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let samples: [Sample]

    init(_ text: String) {
        samples = text.split(separator: "\n").compactMap { line -> Sample? in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
                let value = Double(line[line.index(after: space)...])
            else { return nil }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else {
                return Sample(name: String(series), labels: [:], value: value)
            }
            var labels: [String: String] = [:]
            for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",")
            {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
            }
            return Sample(name: String(series[..<brace]), labels: labels, value: value)
        }
    }

    /// The sum over the series of `name` whose labels include `matching`; nil when there is none.
    func sum(_ name: String, _ matching: [String: String] = [:]) -> Double? {
        let selected = samples.filter { sample in
            sample.name == name && matching.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return selected.isEmpty ? nil : selected.reduce(0) { $0 + $1.value }
    }

    func series(_ name: String) -> [Sample] { samples.filter { $0.name == name } }
}
