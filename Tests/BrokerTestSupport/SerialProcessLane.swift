public import Testing

/// Marks the process-level suite (Tests/ProcessTests, `ProcessLevel`): its tests take no slot
/// of ``HeavyTestGate`` but run in a lane of their own beside it, one at a time because the
/// suite is `.serialized`. Measured one after another they held the gate's slots for 215 s
/// (docs/test-suite-time.md); in the gate they waited behind each other and the other heavy
/// tests, while in their own lane the chain starts with the run and ends long before the
/// gate's queue does. Only a `.serialized` suite may carry it: the lane itself does not queue.
public struct SerialProcessLaneTrait: SuiteTrait, TestTrait {
    public var isRecursive: Bool { true }

    /// Whether the running test carries this trait (from its suite).
    public static var isCurrent: Bool {
        Test.current?.traits.contains { $0 is SerialProcessLaneTrait } ?? false
    }
}

extension Trait where Self == SerialProcessLaneTrait {
    /// Runs the suite's tests beside ``HeavyTestGate``, in the serial process-level lane.
    public static var serialProcessLane: Self { SerialProcessLaneTrait() }
}

/// The session timeout and heartbeat interval of a test's consumer-group members, in-process
/// consumers and worker processes alike. A join on the local broker takes about half the
/// session timeout plus 0.6 s whatever the heartbeat (docs/test-suite-time.md), and a killed
/// member holds its partitions for a whole session: the session is most of a typical broker
/// test's time.
public struct GroupSession: Sendable {
    public var timeout: Duration
    public var heartbeat: Duration

    /// Beside up to four other heavy tests, on a loaded machine: room for a member whose
    /// heartbeats are late by seconds.
    public static let gated = GroupSession(timeout: .seconds(6), heartbeat: .milliseconds(500))
    /// In the serial lane, one test at a time, with nothing of its own kind competing: half the
    /// session, each join 1.5 s shorter. It held with two CPU burners beside a whole run
    /// (docs/test-suite-time.md); the heartbeat stays at 500 ms, six chances per session.
    public static let serialLane = GroupSession(timeout: .seconds(3), heartbeat: .milliseconds(500))

    /// The running test's: ``serialLane`` in the serial process-level lane, else ``gated``.
    public static var current: GroupSession { SerialProcessLaneTrait.isCurrent ? serialLane : gated }

    /// How long a test's consumers (all but topic followers and offset look-ups) let the
    /// local broker hold an empty fetch (`fetch.wait.max.ms`; production's default is 5 ms,
    /// the manifests' 100 ms). Tansu answers an idle consumer's fetch only when this runs
    /// out, so at 5 ms each idle consumer asks up to 200 times a second: measured over a
    /// whole run (`perf record -a`, docs/test-suite-time.md), the brokers took 29% of the
    /// busy CPU, most of it the idle members of tests that wait on group joins. 50 ms costs a
    /// test at most that much per hop of a record already in flight; a partition with
    /// records waiting is answered at once. `BrokerOutageTests` keeps production's 5 ms.
    public static let fetchWait: Duration = .milliseconds(50)

    /// As a worker process reads them (`WorkerLauncher`'s environment).
    public var environment: [String: String] {
        [
            "KAFKA_SESSION_TIMEOUT_MS": Self.milliseconds(timeout),
            "KAFKA_HEARTBEAT_INTERVAL_MS": Self.milliseconds(heartbeat),
            "KAFKA_FETCH_WAIT_MAX_MS": Self.milliseconds(Self.fetchWait),
        ]
    }

    /// Whole milliseconds, as Kafka's settings take them.
    public static func milliseconds(_ duration: Duration) -> String {
        String(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
