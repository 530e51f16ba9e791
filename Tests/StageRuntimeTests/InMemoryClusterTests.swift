import StageSimulation
import Testing

/// The in-memory cluster's group rules the simulation rests on.
@Suite struct InMemoryClusterTests {
    @Test func membersShareThePartitionsInRangesAndCommitOnlyTheirOwn() {
        var cluster = InMemoryCluster(partitionCount: 6)
        cluster.join("g", member: "a")
        #expect(cluster.assignment(of: "a", in: "g") == [0, 1, 2, 3, 4, 5])
        cluster.join("g", member: "b")
        #expect(cluster.assignment(of: "a", in: "g") == [0, 1, 2])
        #expect(cluster.assignment(of: "b", in: "g") == [3, 4, 5])
        // A commit for a partition the member no longer owns is refused, as from an older generation.
        cluster.commit([1: 10, 4: 7], group: "g", member: "a")
        #expect(cluster.committed(1, group: "g") == 10)
        #expect(cluster.committed(4, group: "g") == 0)
        cluster.leave("g", member: "a")
        #expect(cluster.assignment(of: "b", in: "g") == [0, 1, 2, 3, 4, 5])
    }

    @Test func recordsLandOnTheirKeysPartitionInOrder() {
        var cluster = InMemoryCluster(partitionCount: 4)
        let first = cluster.append(.init(key: "u1", value: [1], signature: nil), to: "t")
        let second = cluster.append(.init(key: "u1", value: [2], signature: nil), to: "t")
        #expect(first.partition == second.partition)
        #expect((first.offset, second.offset) == (0, 1))
        #expect(cluster.records(of: "t", partition: first.partition, from: 1).map(\.value) == [[2]])
        #expect(cluster.endOffset(of: "t", partition: first.partition) == 2)
    }
}
