internal import CCurl

/// A request's header lines as the `curl_slist` that `CURLOPT_HTTPHEADER` takes, built in one allocation.
///
/// `curl_slist_append` allocates a node and copies the line for every header (two allocations each, freed
/// again one by one). libcurl only reads the list, and only until the transfer is done (libcurl:
/// "CURLOPT_HTTPHEADER ... the linked list must stay valid until the transfer is done"), so the nodes and
/// the NUL-terminated lines can share one buffer, which the owner frees with ``deallocate()``.
///
/// Thread-safety: none; owned by one ``Transfer`` on the loop thread.
struct HeaderList {
    /// The first node, for `CURLOPT_HTTPHEADER`; nil for no lines.
    let head: UnsafeMutablePointer<curl_slist>?
    private let buffer: UnsafeMutableRawPointer?

    /// Builds the lines libcurl needs for `headers`: `name: value` with the name lowercased (HTTP/2 requires
    /// lowercase names, RFC 9113 §8.2.1), `name;` for an empty value (libcurl's spelling of one), and
    /// `content-type:` / `expect:`, which stop libcurl adding its form-encoded content type (wrong for JSON)
    /// and HTTP/1.1's `Expect: 100-continue` (a needless round trip), unless the caller gave those headers.
    /// - Parameter headers: validated header fields (names are ASCII tokens; values have no CR, LF or NUL).
    init(_ headers: [HTTP2Request.Header]) {
        var hasContentType = false
        var hasExpect = false
        var textBytes = 0
        for header in headers {
            hasContentType = hasContentType || ASCII.equals(header.name, lowercased: "content-type")
            hasExpect = hasExpect || ASCII.equals(header.name, lowercased: "expect")
            // name + ": " + value + NUL, or name + ";" + NUL
            textBytes += header.name.utf8.count + (header.value.isEmpty ? 2 : header.value.utf8.count + 3)
        }
        let removals: [StaticString] = (hasContentType ? [] : ["content-type:"]) + (hasExpect ? [] : ["expect:"])
        textBytes += removals.reduce(0) { $0 + $1.utf8CodeUnitCount + 1 }
        let count = headers.count + removals.count
        guard count > 0 else {
            head = nil
            buffer = nil
            return
        }
        let nodeBytes = count * MemoryLayout<curl_slist>.stride
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: nodeBytes + textBytes,
                                                      alignment: MemoryLayout<curl_slist>.alignment)
        let nodes = buffer.bindMemory(to: curl_slist.self, capacity: count)
        var text = (buffer + nodeBytes).bindMemory(to: UInt8.self, capacity: textBytes)
        var index = 0
        func addLine(_ write: (inout UnsafeMutablePointer<UInt8>) -> Void) {
            let start = text
            write(&text)
            text.pointee = 0
            text += 1
            let next = index + 1 < count ? nodes + index + 1 : nil
            (nodes + index).initialize(to: curl_slist(data: UnsafeMutableRawPointer(start).assumingMemoryBound(to: CChar.self),
                                                      next: next))
            index += 1
        }
        for header in headers {
            addLine { out in
                for byte in header.name.utf8 {
                    out.pointee = ASCII.lowercased(byte)
                    out += 1
                }
                if header.value.isEmpty {
                    out.pointee = UInt8(ascii: ";")
                    out += 1
                } else {
                    out.pointee = UInt8(ascii: ":")
                    (out + 1).pointee = UInt8(ascii: " ")
                    out += 2
                    for byte in header.value.utf8 {
                        out.pointee = byte
                        out += 1
                    }
                }
            }
        }
        for line in removals {
            addLine { out in
                out.update(from: line.utf8Start, count: line.utf8CodeUnitCount)
                out += line.utf8CodeUnitCount
            }
        }
        head = nodes
        self.buffer = buffer
    }

    /// Frees the list; call once, after libcurl is done with the transfer.
    func deallocate() {
        buffer?.deallocate()
    }

    /// The lines in order, as strings (for tests).
    var lines: [String] {
        var result: [String] = []
        var node = head
        while let current = node {
            result.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return result
    }
}
