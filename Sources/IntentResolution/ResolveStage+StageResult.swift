public import Intents

extension ResolveStage.Output {
    /// The output as every other stage returns its decision (events by destination, a
    /// rejection for the dead-letter topic): what the Kafka worker and the simulation
    /// publish. A refused request is dead-lettered first (state), then its final
    /// response reports it.
    public var stageResult: StageResult {
        switch self {
        case .prompt(let event): return StageResult(events: [(.prompts, event)])
        case .resolved(let event): return StageResult(events: [(.resolved, event)])
        case .ignored(let reason): return .ignored(reason)
        case .rejected(let error): return .rejected(error)
        case .refused(let error, let response):
            var result = StageResult(events: [(.responses, response)])
            result.rejected = error
            return result
        }
    }
}
