internal import CCurl
import Foundation

/// The loop run by a client's dedicated thread: it owns the multi handle and every in-flight easy
/// handle, so libcurl is only ever driven from that one thread. Other threads reach it through
/// ``LoopMailbox`` alone.
final class MultiLoop {
    /// Upper bound on one `curl_multi_poll` wait in milliseconds. Wake-ups normally end the wait at once;
    /// this only bounds the delay should one be lost.
    static let pollIntervalMs: Int32 = 1000

    private let mailbox: LoopMailbox
    private let configuration: HTTP2Client.Configuration
    /// Each value holds the one +1 retain taken when its handle entered the multi handle;
    /// `detach` is the only place that gives it back. Keyed by the caller's PendingResponse.
    private var inFlight: [ObjectIdentifier: Unmanaged<Transfer>] = [:]

    init(mailbox: LoopMailbox, configuration: HTTP2Client.Configuration) {
        self.mailbox = mailbox
        self.configuration = configuration
    }

    /// Runs until shutdown, then fails what is left, frees the multi handle and signals exit.
    func run() {
        defer { mailbox.loopDidExit() }
        guard let multi = mailbox.multiHandle() else { return }
        while true {
            let batch = mailbox.takeBatch()
            if batch.isShuttingDown {
                failAll(multi, with: .shutDown)
                for pending in batch.submissions {
                    pending.resolve(.failure(HTTP2ClientError.shutDown))
                }
                break
            }
            for pending in batch.submissions {
                start(pending, on: multi)
            }
            for pending in batch.cancellations {
                detach(pending, from: multi)?.pending.resolve(.failure(CancellationError()))
            }

            var running: Int32 = 0
            let performed = curl_multi_perform(multi, &running)
            if performed != CURLM_OK {
                failAll(multi, with: Curl.error(performed, function: "curl_multi_perform"))
            }
            completeFinished(on: multi)

            let polled = curl_multi_poll(multi, nil, 0, Self.pollIntervalMs, nil)
            if polled != CURLM_OK {
                failAll(multi, with: Curl.error(polled, function: "curl_multi_poll"))
                Thread.sleep(forTimeInterval: 0.05)  // back off instead of spinning on a broken poll
            }
        }
        mailbox.retireMultiHandle()
        curl_multi_cleanup(multi)
    }

    private func start(_ pending: PendingResponse, on multi: UnsafeMutableRawPointer) {
        // The task may have been cancelled before its request reached this thread.
        guard !pending.isCancelled else {
            pending.resolve(.failure(CancellationError()))
            return
        }
        let transfer: Transfer
        do {
            transfer = try Transfer.make(for: pending, configuration: configuration)
        } catch {
            pending.resolve(.failure(error))
            return
        }
        let retained = Unmanaged.passRetained(transfer)
        do {
            try transfer.attach(userData: retained.toOpaque())
            try Curl.check(curl_multi_add_handle(multi, transfer.easy), "curl_multi_add_handle")
        } catch {
            retained.release()
            pending.resolve(.failure(error))
            return
        }
        inFlight[ObjectIdentifier(pending)] = retained
    }

    /// Takes a transfer out of the multi handle and gives back its retain.
    /// - Returns: The transfer, or nil if it is not in flight (already finished, or never started).
    private func detach(_ pending: PendingResponse, from multi: UnsafeMutableRawPointer) -> Transfer? {
        guard let retained = inFlight.removeValue(forKey: ObjectIdentifier(pending)) else { return nil }
        let transfer = retained.takeRetainedValue()
        // Removing an unfinished HTTP/2 transfer resets only its stream; the connection stays up.
        // It cannot fail for a handle this loop added; were it to, curl_easy_cleanup removes it again.
        _ = curl_multi_remove_handle(multi, transfer.easy)
        return transfer
    }

    private func completeFinished(on multi: UnsafeMutableRawPointer) {
        // Messages point into libcurl's memory, which removing a handle may free: copy them out first.
        var finished: [(easy: UnsafeMutableRawPointer, code: CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            finished.append((easy, message.pointee.data.result))
        }
        for (easy, code) in finished {
            var userData: UnsafeMutableRawPointer?
            do {
                try Curl.check(CCurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &userData), "curl_easy_getinfo(PRIVATE)")
            } catch {
                continue  // cannot fail for a handle this loop configured
            }
            guard let userData else { continue }
            // Safe to dereference: only handles in the multi handle produce messages, and every one of
            // those is in `inFlight`, holding its retain, until `detach` removes it from the multi handle.
            let pending = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue().pending
            guard let transfer = detach(pending, from: multi) else { continue }
            pending.resolve(transfer.outcome(for: code))
        }
    }

    private func failAll(_ multi: UnsafeMutableRawPointer, with error: HTTP2ClientError) {
        for retained in Array(inFlight.values) {
            let pending = retained.takeUnretainedValue().pending
            detach(pending, from: multi)?.pending.resolve(.failure(error))
        }
    }
}
