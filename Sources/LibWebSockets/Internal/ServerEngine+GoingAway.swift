import CLWS

/// The graceful part of shutdown: every open WebSocket hears a close frame before the loop stops
/// (``GoingAwayPhase`` decides; this carries its decisions out on the service thread).
extension ServerEngine {
    /// Sockets asked to close per loop turn: each costs an `epoll_ctl` (lws asks for POLLOUT), so 19,000 of them
    /// are spread over about twenty turns, with the writes of the sockets already asked in between.
    static let goingAwayBatch = 1024

    /// Starts the phase (``WebServer/shutdown(closingWebSocketsWith:reason:within:)`` posted it): stops accepting,
    /// refuses upgrades from now on, and asks the first batch of open WebSockets to close. A second request
    /// while the phase runs changes nothing.
    func beginGoingAway(_ status: WebSocketOutbox.CloseStatus, withinTicks ticks: Int) {
        let table = self.table
        guard table.goingAway == nil, let loop = table.loop else { return }
        loop.stopAccepting()
        table.acceptor?.shutdown()
        // The one walk over the sessions; from here on each socket costs O(1) when asked and when closed.
        let open = table.sessions.values.compactMap { $0.webSocket == nil ? nil : $0.id }
        table.goingAway = GoingAwayPhase(
            sockets: open, status: status, now: loop.tick, within: ticks,
            batchSize: Self.goingAwayBatch)
        loop.runEveryTurn()
        continueGoingAway()
    }

    /// Once per loop turn while the phase has sockets left to ask: the next batch gets the close frame, queued
    /// behind its messages (``WebSocketFrameWriter`` writes it; the socket closes when the peer's close reply
    /// arrives, ``onWebSocketPeerClose(_:)``, or when the phase ends).
    func continueGoingAway() {
        let table = self.table
        guard let loop = table.loop, let status = table.goingAway?.status else { return }
        let batch = table.goingAway?.nextBatch() ?? []
        for id in batch {
            guard let session = table.sessions[id], let connection = session.webSocket else { continue }
            // The service thread asks lws directly: no wake-up (pipe write) per socket.
            connection.outbox.requestClose(status, wakes: false)
            lws_callback_on_writable(session.wsi)
        }
        if table.goingAway?.hasUnasked != true { loop.stopEveryTurn() }
        endGoingAwayIfOver()
    }

    /// A WebSocket closed during the phase.
    func goingAwaySocketClosed(_ id: UInt64) {
        guard table.goingAway != nil else { return }
        table.goingAway?.closed(id)
        endGoingAwayIfOver()
    }

    /// Stops the loop once every socket closed or the bound passed (checked on each close and each tick).
    func endGoingAwayIfOver() {
        let table = self.table
        guard let loop = table.loop, let over = table.goingAway?.isOver(at: loop.tick), over else { return }
        loop.stop()
    }

    /// Whether the server is shutting down gracefully (upgrades are refused, responses dropped).
    var isGoingAway: Bool {
        table.goingAway != nil
    }
}
