/// The lws log emit function (`lws_set_log_level`): a plain C-compatible global function.
func clwsEmitLogLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    LibWebSocketsLog.emit(level: level, line: String(cString: line))
}
