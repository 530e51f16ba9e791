import NIOCore
import NIOHTTPTypes

/// The header-read timeout: a request head must be complete within a fixed
/// time of its first byte (or of the connection opening), however slowly the
/// bytes trickle in. Hummingbird's idle timeout cannot do this on its own: it
/// only counts decoded HTTP parts, so a client dripping header bytes keeps a
/// connection for the whole idle timeout, and a short idle timeout would cut
/// legitimate keep-alive connections.
///
/// It takes two handlers because the decoder sits between what they must
/// see: ``RequestBytesObserver`` (before the HTTP decoder) sees raw bytes
/// arrive, and ``RequestHeadTimeoutHandler`` (after it) sees request heads
/// complete and responses end, and owns the timer.
enum RequestHeadTimeout {
    /// Sent inbound by ``RequestBytesObserver`` before each read it passes on.
    struct BytesArrived {}
}

/// Tells ``RequestHeadTimeoutHandler`` that bytes arrived, ahead of the bytes
/// themselves, so that the handler can start the clock before the decoder
/// has anything to show. Goes first in the pipeline.
final class RequestBytesObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(RequestHeadTimeout.BytesArrived())
        context.fireChannelRead(data)
    }
}

/// Closes the connection when no complete request head arrived within
/// `timeout` of the connection opening, or of the first bytes received while
/// no request was in flight. Bytes that arrive while a request is in flight
/// (a body, or a pipelined next request) do not start the clock: the idle
/// timeout bounds those.
final class RequestHeadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    /// Request heads read minus responses ended.
    private var requestsInFlight = 0
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startClock(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopClock()
    }

    func channelActive(context: ChannelHandlerContext) {
        startClock(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClock()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is RequestHeadTimeout.BytesArrived else {
            return context.fireUserInboundEventTriggered(event)
        }
        if requestsInFlight == 0 { startClock(context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            requestsInFlight += 1
            stopClock()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), requestsInFlight > 0 {
            requestsInFlight -= 1
        }
        context.write(data, promise: promise)
    }

    /// Starts the clock unless it already runs (a trickle of bytes must not restart it).
    private func startClock(_ context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.deadline = nil
            context.close(promise: nil)
        }
    }

    private func stopClock() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension RequestBytesObserver: Sendable {}

@available(*, unavailable)
extension RequestHeadTimeoutHandler: Sendable {}
