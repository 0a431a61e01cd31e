import Foundation
import Testing

@testable import RingerSupport

/// The log's lines: gathered and written in order, a warning at once, a full batch without waiting.
struct StreamLogHandlerTests {
    /// The read end of a pipe the handler writes to, read without blocking.
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

    @Test func infoLinesAreWrittenTogetherInOrderAndAWarningAtOnce() async throws {
        let pipe = Pipe()
        let handler = StreamLogHandler(handle: pipe.fileHandleForWriting)
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
        try await Task.sleep(for: .seconds(StreamLogHandler.flushDelay * 6))
        #expect(Self.read(pipe).hasSuffix(" info test: fourth\n"))
    }

    @Test func aFullBatchIsWrittenWithoutWaiting() {
        let pipe = Pipe()
        let log = Logger(label: "test", level: .info, handler: StreamLogHandler(handle: pipe.fileHandleForWriting))
        let message = String(repeating: "x", count: 1000)
        for _ in 0..<(StreamLogHandler.flushBytes / 1000 + 1) { log.info("\(message)") }
        #expect(Self.read(pipe).count >= StreamLogHandler.flushBytes)
    }
}
