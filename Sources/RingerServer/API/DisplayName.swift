import Foundation

/// The rules for display names: those the API takes (`PUT` of a user, tokens minted here) and those in tokens
/// the app's backend signs, which travel in every ringing push and show on the callee's screen.
public enum DisplayName {
    /// Longest display name, in characters (grapheme clusters); longer names in foreign tokens are cut.
    public static let maximumNameLength = 64
    /// Longest display name in UTF-8 bytes. The name travels in every ringing push: escaped for JSON it is at
    /// most twice this (no control character is allowed), which with the rest of the `ringer` body stays far
    /// below the smallest provider limit, FCM's 4096 bytes of data (Google: "FCM messages", payload limits;
    /// APNs allows 5120 for VoIP). 64 characters of most scripts fit; 64 emoji sequences of 11 KB do not.
    public static let maximumNameBytes = 256

    /// Why `name` cannot be a display name, or nil when it can: 1…``maximumNameLength`` characters,
    /// at most ``maximumNameBytes`` bytes, no control character (U+0000–U+001F, U+007F–U+009F), which SQLite,
    /// logs and notification banners would each treat differently, and nothing with which a caller could make the
    /// callee's screen show another name or none (``showsWrongly(_:)``).
    public static func problem(_ name: String) -> String? {
        if name.isEmpty || name.count > maximumNameLength {
            return "name must be 1 to \(maximumNameLength) characters"
        }
        if name.utf8.count > maximumNameBytes { return "name must be at most \(maximumNameBytes) bytes of UTF-8" }
        if name.unicodeScalars.contains(where: isControl) { return "name must not contain control characters" }
        if showsWrongly(name) {
            return
                "name must show: no bidirectional override or isolate, zero-width space or line separator, and not blank"
        }
        return nil
    }

    /// A name from a token minted by the app's backend, made fit to ring with: control characters and those
    /// ``showsWrongly(_:)`` refuses dropped (a blank name is none),
    /// then cut to ``maximumNameLength`` characters and ``maximumNameBytes`` bytes at a character boundary, so
    /// a call from its user can always be pushed. Nil when nothing is left.
    public static func fromToken(_ name: String?) -> String? {
        guard let name else { return nil }
        let scalars = showable(name).scalars
        var fitted = ""
        var bytes = 0
        for character in String(scalars).prefix(maximumNameLength) {
            bytes += character.utf8.count
            if bytes > maximumNameBytes { break }
            fitted.append(character)
        }
        return fitted.isEmpty || showsWrongly(fitted) ? nil : fitted
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// Whether `name` holds a scalar that changes what is shown while showing nothing, or shows nothing at all:
    ///
    /// - the bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, with which
    ///   `Bob\u{202E}gnp.exe` read "Bobexe.png" on the callee's screen (issue 26), and the deprecated format
    ///   controls U+206A–U+206F;
    /// - the zero-width space U+200B, the word joiner and invisible operators U+2060–U+2064, U+FEFF, and the
    ///   interlinear annotation marks U+FFF9–U+FFFB, which hide text or join a name to a look-alike;
    /// - the line and paragraph separators (Zl, Zp), which break a banner's line;
    /// - tag characters (U+E0001–U+E007F) outside an emoji tag sequence (UTS #51 §2.8: U+1F3F4 and tags, as in the
    ///   flag of Scotland), where they show nothing;
    /// - and a name of nothing but spaces and default-ignorable characters (the Hangul filler U+3164…).
    ///
    /// Kept, because real names need them: the directional marks U+200E, U+200F and U+061C that keyboards put into
    /// mixed-direction names, the joiners U+200C and U+200D (emoji sequences, Persian, Indic scripts), the soft
    /// hyphen, and the other format characters of scripts (U+0600–U+0605, U+070F, U+180E).
    private static func showsWrongly(_ name: String) -> Bool {
        let (kept, droppedAny) = showable(name)
        return droppedAny
            || !kept.contains { !$0.properties.isWhitespace && !$0.properties.isDefaultIgnorableCodePoint }
    }

    /// The scalars of `name` a screen may show, in order: no control character, none ``isRefusedFormat(_:)`` names,
    /// tag characters only inside an emoji tag sequence (after U+1F3F4 or another kept tag, never U+E0001); and
    /// whether any was left out. The one rule behind both ``showsWrongly(_:)`` and ``displayName(fromToken:)``.
    private static func showable(_ name: String) -> (scalars: String.UnicodeScalarView, droppedAny: Bool) {
        var kept = String.UnicodeScalarView()
        var droppedAny = false
        var afterTagBase = false
        for scalar in name.unicodeScalars {
            if isControl(scalar) || isRefusedFormat(scalar) {
                droppedAny = true
                continue
            }
            if isTag(scalar) {
                afterTagBase = afterTagBase && scalar.value != 0xE0001
                if afterTagBase { kept.append(scalar) } else { droppedAny = true }
                continue
            }
            kept.append(scalar)
            afterTagBase = scalar.value == 0x1F3F4
        }
        return (kept, droppedAny)
    }

    /// The scalars ``showsWrongly(_:)`` refuses wherever they stand.
    private static func isRefusedFormat(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x206F, 0x200B, 0x2060...0x2064, 0xFEFF, 0xFFF9...0xFFFB: return true
        default:
            let category = scalar.properties.generalCategory
            return category == .lineSeparator || category == .paragraphSeparator
        }
    }

    /// A tag character (U+E0001–U+E007F).
    private static func isTag(_ scalar: Unicode.Scalar) -> Bool { (0xE0001...0xE007F).contains(scalar.value) }
}
