import NIOCore

/// Closes a connection whose responses have stopped draining: one that stayed unwritable
/// (more unsent response bytes than the channel's high-water mark) for `timeout`.
///
/// A client that sends requests and never reads the answers (a receive window kept at zero,
/// which its own kernel keeps alive) otherwise holds its connection for ever: the response
/// in progress counts as a request in flight, so neither the header timeout nor Hummingbird's
/// idle timeout applies, and nothing bounds a write. A few such clients take every slot of
/// the connection cap: 64 on a worker's operations port, where the kubelet's liveness probe
/// then waits behind them and the pod is restarted, again and again. A real client on a slow
/// link drains something within seconds, and the clock restarts each time it does.
final class StalledWriteTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            deadline?.cancel()
            deadline = nil
        } else if deadline == nil {
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                self.deadline = nil
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension StalledWriteTimeoutHandler: Sendable {}
