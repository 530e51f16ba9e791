import Foundation
import Testing

/// A bound (`maxLength`, `maxItems`) as a schema file of `schemas/` states it, at `path` under
/// `root` (`$defs`, `properties`): the tests read the Swift limits' values from here, so the
/// limits cannot drift from the published schemas.
func schemaFileBound(_ file: String, under root: String, _ path: [String], _ bound: String) throws -> Int {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("schemas/\(file)")
    let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    var node = schema?[root] as? [String: Any]
    for key in path { node = node?[key] as? [String: Any] }
    return try #require(node?[bound] as? Int, "\(file): \(path) has no \(bound)")
}
