public import Intents

extension IntentResolutionReport {
    /// Words every question of the report in the renderer's locale, each parameter that
    /// needs the user carrying its question's text, key and arguments. The resolve stage
    /// does this for its prompts, so a voice service can say the text as is, or the key in
    /// its own language.
    public mutating func wordPrompts(with renderer: MessageRenderer) {
        for index in parameters.indices {
            guard let question = parameters[index].prompt else { continue }
            parameters[index].ask(question, saying: renderer.render(question))
        }
    }
}
