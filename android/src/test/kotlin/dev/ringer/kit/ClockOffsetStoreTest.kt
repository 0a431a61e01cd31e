package dev.ringer.kit

import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Test
import java.io.File
import java.nio.file.Files

class ClockOffsetStoreTest {
    private val directory: File = Files.createTempDirectory("ringer-clock").toFile()

    @After
    fun removeDirectory() {
        directory.deleteRecursively()
    }

    @Test
    fun clockOffsetsSurviveARestartAndNullForgetsThem() {
        val offsetFile = File(directory, "clock-offset.json")
        FileClockOffsetStore(offsetFile).save(StoredClockOffset(offsetMs = -1_250, bootTimeMs = 1_767_000_000_000))
        assertEquals(StoredClockOffset(-1_250, 1_767_000_000_000), FileClockOffsetStore(offsetFile).load())
        FileClockOffsetStore(offsetFile).save(null)
        assertNull(FileClockOffsetStore(offsetFile).load())
        assertFalse(offsetFile.exists())
    }

    @Test
    fun aCorruptOrIncompleteClockOffsetFileLoadsAsNone() {
        val offsetFile = File(directory, "clock-offset.json")
        offsetFile.writeText("{\"offset_ms\":12")
        assertNull(FileClockOffsetStore(offsetFile).load())
        offsetFile.writeText("{\"offset_ms\":12}")
        assertNull(FileClockOffsetStore(offsetFile).load())
        offsetFile.writeText("{\"offset_ms\":\"12\",\"boot_time_ms\":5}")
        assertNull(FileClockOffsetStore(offsetFile).load())
    }

    @Test
    fun theInMemoryClockOffsetStoreHoldsWhatWasSaved() {
        val store = InMemoryClockOffsetStore(StoredClockOffset(5, 6))
        assertEquals(StoredClockOffset(5, 6), store.load())
        store.save(null)
        assertNull(store.load())
    }
}
