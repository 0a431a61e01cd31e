package dev.ringer.e2e

import org.junit.rules.TestWatcher
import org.junit.runner.Description

/**
 * A JUnit 4 rule printing every process's log of [cluster] when a test fails, so that a red end-to-end test
 * shows what the server and the sandbox saw (the folder is deleted when the cluster closes).
 */
class PrintLogsOnFailure(private val cluster: () -> RingerCluster?) : TestWatcher() {
    override fun failed(e: Throwable, description: Description) {
        val logs = cluster()?.logs() ?: "(no cluster was started)"
        System.err.println("===== ${description.displayName} failed; the processes' logs:\n$logs\n===== end of logs")
    }
}
