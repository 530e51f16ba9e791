import IntentEvents
import PipelineTopics

/// Strimzi `KafkaUser` resources (kafka.strimzi.io/v1beta2) for every workload's
/// ``KafkaAccess``, as multi-document YAML: what `intentctl topics acls` prints and
/// deploy/kubernetes/strimzi/kafka-users.yaml holds. Written by hand, not by a YAML
/// library, so the output is the same bytes on every run (the committed file is
/// compared with it byte for byte); every name is a quoted JSON string, which YAML
/// reads as the same string whatever the prefix holds.
enum KafkaUserManifest {
    /// Where the User Operator must create the users' Secrets: the workloads' namespace.
    static let namespace = "intent-pipeline"

    static func render(topics: PipelineTopics, cluster: String, groups: [KafkaAccess.Workload: String] = [:]) -> String
    {
        var lines = [
            "# One Kafka user per intent-pipeline workload and per party that feeds or reads it from outside (voice",
            "# services, the contacts and settings services, the ledger operator, auditors), each with exactly the ACLs",
            "# it needs (SECURITY.md, attack 59). The ACLs hold only where the brokers enforce them: the Kafka resource",
            "# needs spec.kafka.authorization (type simple), and a user without ACLs then gets nothing.",
            "# Generated from the access the code declares (Sources/PipelineTopics/KafkaAccess.swift); do not edit.",
            "# Regenerate: intentctl topics acls > deploy/kubernetes/strimzi/kafka-users.yaml",
            "# (DeployManifestTests fails while this file differs from that output.)",
            "# Strimzi's User Operator creates a Secret named after each user, key `password` (SCRAM-SHA-512),",
            "# in the user's namespace: it must watch namespace \(namespace) (a User Operator watches one namespace,",
            "# so every user of its cluster lives there). Each workload mounts its own; the outside parties take theirs.",
        ]
        if !topics.prefix.isEmpty { lines.append("# Topic prefix: \(quoted(topics.prefix))") }
        for (workload, group) in groups.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append("# Consumer group of \(workload.user): \(quoted(group))")
        }
        for access in KafkaAccess.all(topics: topics, groups: groups) {
            lines += [
                "---",
                "apiVersion: kafka.strimzi.io/v1beta2",
                "kind: KafkaUser",
                "metadata:",
                "  name: \(access.workload.user)",
                "  namespace: \(namespace)",
                "  labels:",
                "    strimzi.io/cluster: \(quoted(cluster))",
                "    app.kubernetes.io/part-of: intent-pipeline",
                "    app.kubernetes.io/component: \(access.workload.user)",
                "spec:",
                "  authentication:",
                "    type: scram-sha-512",
                "  authorization:",
                "    type: simple",
                "    acls:",
            ]
            for acl in access.acls {
                let resource =
                    "{ type: \(acl.resourceType.rawValue), name: \(quoted(acl.name)), patternType: \(acl.patternType.rawValue) }"
                lines += [
                    "      - resource: \(resource)",
                    "        operations: [\(acl.operations.map(\.rawValue).joined(separator: ", "))]",
                    "        host: \"*\"",
                ]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a YAML double-quoted scalar (a JSON string is one).
    static func quoted(_ text: String) -> String {
        String(decoding: CanonicalJSON.encode(text), as: UTF8.self)
    }
}
