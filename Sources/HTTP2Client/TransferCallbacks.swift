internal import CCurl

// libcurl calls these on the loop thread, from inside curl_multi_perform. They are plain global
// functions (not closures) so they carry no actor isolation; `userdata` is the Unmanaged pointer to the
// Transfer that MultiLoop keeps retained while the handle is in the multi handle.

/// `CURLOPT_WRITEFUNCTION`: receives response body bytes. Returning less than `size * count` aborts the
/// transfer with `CURLE_WRITE_ERROR`.
func transferBodyCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow, let userdata else { return 0 }
    guard total > 0, let data else { return total }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.appendBody(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
}

/// `CURLOPT_HEADERFUNCTION`: receives one complete response header line (status lines and the blank
/// line ending each block included).
func transferHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow, let userdata else { return 0 }
    guard total > 0, let data else { return total }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: total))
    return total
}
