import StageRuntime

/// One stage's consumer group of ``SimulatedMember``s on the cluster: members join,
/// crash (gone at once, with whatever they had in flight), shut down gracefully and
/// leave; every change is a rebalance that tells each member what it now owns.
struct SimulatedGroup<Decider: StageDecider> {
    var members: [SimulatedMember<Decider>] = []
    private var joined = 0

    /// A new member, with a batch size drawn from the seed.
    mutating func join(_ world: inout SimulatedWorld) {
        joined += 1
        let name = "\(Decider.group)-\(joined)"
        let policy = Decider.policy(maximumBatch: 1 + Int(world.random.next() % 64))
        members.append(SimulatedMember(name: name, policy: policy, seed: world.random.next(), world))
        world.cluster.join(Decider.group, member: name)
        rebalance(&world)
    }

    /// Tells every member what the group's new generation gives and takes.
    private mutating func rebalance(_ world: inout SimulatedWorld) {
        world.report.rebalances += 1
        for index in members.indices where !members[index].left {
            let assignment = world.cluster.assignment(of: members[index].name, in: Decider.group)
            members[index].reassign(assignment, &world)
        }
    }

    /// A member dies: nothing it had in flight is finished, its session ends.
    mutating func crash(_ index: Int, _ world: inout SimulatedWorld) {
        world.report.crashes += 1
        let name = members.remove(at: index).name
        world.cluster.leave(Decider.group, member: name)
        rebalance(&world)
    }

    /// One step with faults: a crash (and maybe a restart), a scale-up to at most three,
    /// a graceful shutdown while more than one runs, or a turn of a random member.
    mutating func step(_ world: inout SimulatedWorld) {
        let roll = world.random.next() % 1000
        if roll < 1, !members.isEmpty {
            crash(Int(world.random.next() % UInt64(members.count)), &world)
            if members.isEmpty || world.random.next() % 2 == 0 { join(&world) }
        } else if roll < 2, members.count < 3 {
            join(&world)
        } else if roll < 3, members.count > 1 {
            members[Int(world.random.next() % UInt64(members.count))].shutdown(&world)
        } else if !members.isEmpty {
            members[Int(world.random.next() % UInt64(members.count))].turn(&world)
        }
        removeLeft(&world)
    }

    /// Every member takes a turn (no faults drawn here).
    mutating func turnAll(_ world: inout SimulatedWorld) {
        for index in members.indices { members[index].turn(&world) }
        removeLeft(&world)
    }

    /// Members that finished shutting down leave, fenced ones are restarted (their
    /// orchestrator's part); an empty group gets a new member.
    private mutating func removeLeft(_ world: inout SimulatedWorld) {
        // Most steps nobody left (a fenced member has left too): one pass that looks, before
        // two that filter.
        guard members.isEmpty || members.contains(where: { $0.left }) else { return }
        let left = members.filter(\.left).map(\.name)
        let fenced = members.filter(\.fenced).count
        if !left.isEmpty {
            members.removeAll(where: \.left)
            for name in left { world.cluster.leave(Decider.group, member: name) }
            world.report.fencedStops += fenced
            rebalance(&world)
        }
        for _ in 0..<fenced { join(&world) }
        if members.isEmpty { join(&world) }
    }

    /// Nothing in flight and every input record consumed and committed.
    func isSettled(_ world: SimulatedWorld) -> Bool {
        members.allSatisfy(\.isIdle) && uncommitted(world).isEmpty
    }

    /// Partitions whose committed offset is short of the input's end: (partition, committed, end).
    func uncommitted(_ world: SimulatedWorld) -> [(partition: Int32, committed: Int64, end: Int64)] {
        (0..<Int32(world.cluster.partitionCount)).compactMap { partition in
            let committed = world.cluster.committed(partition, group: Decider.group)
            let end = world.cluster.endOffset(of: Decider.input, partition: partition)
            return committed == end ? nil : (partition, committed, end)
        }
    }
}
