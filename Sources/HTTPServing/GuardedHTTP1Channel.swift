import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 child channel with the header-read timeout in front and the
/// stalled-write timeout (``StalledWriteTimeoutHandler``) beside it:
/// ``RequestBytesObserver`` must sit before the HTTP decoder, where
/// `HTTP1Channel`'s own extension point (`additionalChannelHandlers`, after
/// the decoder) cannot put it. Everything else, including the idle timeout,
/// is `HTTP1Channel`'s.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let writeTimeout: TimeAmount

    init(responder: @escaping HTTPChannelHandler.Responder, limits: HTTPServerLimits) {
        let headerTimeout = TimeAmount(limits.headerTimeout)
        writeTimeout = TimeAmount(limits.writeTimeout)
        http1 = HTTP1Channel(
            responder: responder,
            configuration: .init(
                additionalChannelHandlers: [RequestHeadTimeoutHandler(timeout: headerTimeout)],
                idleTimeout: TimeAmount(limits.idleTimeout)))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestBytesObserver(), position: .first)
            try channel.pipeline.syncOperations.addHandler(StalledWriteTimeoutHandler(timeout: writeTimeout))
        }.flatMap {
            http1.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
