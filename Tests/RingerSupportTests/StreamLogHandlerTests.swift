import Foundation
import Testing

@testable import RingerSupport

/// The log's lines: gathered and written in order, a warning at once, a full batch without waiting, the rest within
/// the flush delay; the handle stays open for a flush that comes after its last user let go.
struct StreamLogHandlerTests {
    /// What the read end of `pipe` holds now, read without blocking.
    private static func read(_ pipe: Pipe) -> String {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Foundation.read(descriptor, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func infoLinesWaitAndAWarningWritesThemAllInOrder() {
        let pipe = Pipe()
        // A delay no test run reaches: nothing is written but by the warning.
        let handler = StreamLogHandler(handle: pipe.fileHandleForWriting, flushDelay: 3600)
        let log = Logger(label: "test", level: .info, handler: handler)
        log.info("first", ["call.id": "a", "b": "2"])
        log.info("second")
        #expect(Self.read(pipe).isEmpty)
        log.warning("third")
        let lines = Self.read(pipe).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasSuffix(" info test: first b=2 call.id=a"))
        #expect(lines[1].hasSuffix(" info test: second"))
        #expect(lines[2].hasSuffix(" warning test: third"))
        log.info("fourth")
        handler.flush()
        #expect(Self.read(pipe).hasSuffix(" info test: fourth\n"))
    }

    @Test func anInfoLineIsWrittenWithinTheFlushDelay() async throws {
        let pipe = Pipe()
        let log = Logger(
            label: "test", level: .info, handler: StreamLogHandler(handle: pipe.fileHandleForWriting, flushDelay: 0.01))
        log.info("soon")
        var text = ""
        for _ in 0..<500 where text.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            text = Self.read(pipe)
        }
        #expect(text.hasSuffix(" info test: soon\n"))
    }

    @Test func aFullBatchIsWrittenWithoutWaiting() {
        let pipe = Pipe()
        let handler = StreamLogHandler(handle: pipe.fileHandleForWriting, flushDelay: 3600)
        let log = Logger(label: "test", level: .info, handler: handler)
        let message = String(repeating: "x", count: 1000)
        for _ in 0..<(StreamLogHandler.flushBytes / 1000 + 1) { log.info("\(message)") }
        #expect(Self.read(pipe).count >= StreamLogHandler.flushBytes)
        // The line past the batch waits; the handler keeps the pipe open for it.
        handler.flush()
        #expect(!Self.read(pipe).isEmpty)
    }
}
