/// The task executor of one server's service thread (SE-0417): a task that prefers it runs its jobs there, between
/// the loop's socket events, so a request's handler starts and answers without crossing to another thread.
///
/// A job goes through the ``ServiceMailbox`` (one wake-up for all the jobs and messages posted until the thread takes
/// them) and runs in the `LWS_CALLBACK_EVENT_WAIT_CANCELLED` turn. Once the loop has stopped, a job runs on Swift's
/// global executor instead, so no task is left without a thread.
final class ServiceExecutor: TaskExecutor {
    private let mailbox: ServiceMailbox<ServerMessage>

    init(mailbox: ServiceMailbox<ServerMessage>) {
        self.mailbox = mailbox
    }

    /// Queues `job` for the service thread: a job of a task at `.high` priority or above (a ringing push) ahead of
    /// the others, so that in a burst of requests the push of a call already decided goes out before the next
    /// request is handled.
    func enqueue(_ job: consuming ExecutorJob) {
        let first = job.priority.rawValue >= TaskPriority.high.rawValue
        let job = UnownedJob(job)
        if !mailbox.post(.run(job), first: first) { Self.runElsewhere(job) }
    }

    /// Hands `job` to Swift's global executor (the service loop has stopped).
    static func runElsewhere(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}
