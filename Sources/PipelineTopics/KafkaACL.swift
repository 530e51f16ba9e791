/// One access control entry of a Kafka user: the operations it may do on one
/// resource (a topic or a consumer group), named literally or by a prefix.
/// ``KafkaAccess`` derives these from a workload's declared access, so the
/// grants a deployment applies and the topics a worker checks at start come
/// from the same declaration.
public struct KafkaACL: Sendable, Hashable {
    /// What a grant applies to (Kafka's resource types the pipeline needs).
    public enum ResourceType: String, Sendable, Hashable {
        case topic
        case group
    }

    /// How a grant's name matches: exactly, or every name that starts with it.
    public enum PatternType: String, Sendable, Hashable {
        case literal
        case prefix
    }

    /// Kafka's operations, spelt as Kafka and Strimzi spell them. Declared in the
    /// order they are printed, so a grant's operations always read the same.
    public enum Operation: String, Sendable, Hashable, CaseIterable, Comparable {
        case read = "Read"
        case write = "Write"
        case create = "Create"
        case describe = "Describe"
        case describeConfigs = "DescribeConfigs"

        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    public var resourceType: ResourceType
    public var name: String
    public var patternType: PatternType
    /// Sorted (``Operation``'s order), each once.
    public var operations: [Operation]

    public init(
        _ resourceType: ResourceType, _ name: String, _ patternType: PatternType = .literal,
        _ operations: Set<Operation>
    ) {
        self.resourceType = resourceType
        self.name = name
        self.patternType = patternType
        self.operations = operations.sorted()
    }
}
