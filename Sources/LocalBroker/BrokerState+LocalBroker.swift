public import LocalBrokerRecord

extension BrokerState {
    /// The record of a broker this process started (`intentctl broker start`).
    public init(broker: LocalBroker) {
        var children = broker.processes.map {
            Child(name: $0.name, pid: $0.pid, commandMarker: $0.name.contains("socat") ? "socat" : "tansu")
        }
        if let storage = broker.storage {
            children.append(Child(name: storage.process.name, pid: storage.process.pid, commandMarker: "moto"))
        }
        self.init(
            bootstrapServers: broker.bootstrapServers, port: broker.port, durable: broker.storage != nil,
            s3Endpoint: broker.storage?.endpoint, logDirectory: broker.options.logDirectory.path, children: children)
    }

    /// Whether the recorded broker accepts connections now.
    public var isAccepting: Bool { Loopback.isAccepting(port: port) }
}
