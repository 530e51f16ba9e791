import NIOCore

/// Closes a connection whose responses have stopped draining: one that stayed unwritable
/// (more unsent response bytes than the channel's high-water mark) for `timeout` without the
/// client taking any of them.
///
/// A client that sends requests and never reads the answers (a receive window kept at zero,
/// which its own kernel keeps alive) otherwise holds its connection for ever: the response
/// in progress counts as a request in flight, so neither the header timeout nor Hummingbird's
/// idle timeout applies, and nothing bounds a write. A few such clients take every slot of
/// the connection cap: 64 on a worker's operations port, where the kubelet's liveness probe
/// then waits behind them and the pod is restarted, again and again. A real client on a slow
/// link takes some bytes within the timeout, and each time it has, the clock starts again:
/// progress is the bytes handed to the socket (written here less those still buffered), so
/// a large response read slowly is not cut while it drains.
final class StalledWriteTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Bytes written through this handler towards the socket.
    private var queued = 0

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .byteBuffer(let buffer) = unwrapOutboundIn(data) { queued += buffer.readableBytes }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stop()
        } else if deadline == nil {
            arm(context, sentBefore: sent(context))
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    /// Bytes the socket has taken: written here, less those still buffered in the channel.
    private func sent(_ context: ChannelHandlerContext) -> Int {
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        return queued - buffered
    }

    /// Closes the connection after `timeout` unless the socket took bytes meanwhile; then waits again.
    private func arm(_ context: ChannelHandlerContext, sentBefore: Int) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.deadline = nil
            guard !context.channel.isWritable else { return }
            let sentNow = self.sent(context)
            if sentNow > sentBefore {
                self.arm(context, sentBefore: sentNow)
            } else {
                context.close(promise: nil)
            }
        }
    }

    private func stop() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension StalledWriteTimeoutHandler: Sendable {}
