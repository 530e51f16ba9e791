import IntentCrypto
public import LocalBroker

extension WorkerLauncher.Keys {
    /// The keys every test that runs the workers as processes gives them: the load
    /// fixture's voice service and binding key, the test contacts and settings services
    /// among the source keys, and the test stage keys.
    public static var loadFixture: Self {
        Self(
            sourceKeys: "/voice/load \(Digest.hex(LoadFixture.voiceKey))\n" + testContactsKeys.keyFileText
                + testSettingsKeys.keyFileText,
            bindingKey: Digest.hex(LoadFixture.bindingKey), stageKeys: testStageKeys.keyFileText)
    }
}
