package dev.ringer.reactnative

import java.net.URI
import java.net.URISyntaxException

/**
 * When two spellings of a server URL name one server: the rule a login is kept by, the same as the iOS half's
 * `RingerReactNative.sameServer` (react-native/ios/RingerReactNative.swift), so a spelling difference never logs the
 * user out on one platform only (docs/react-native.md).
 */
object ServerUrl {
    /**
     * Whether [a] and [b] name the same server: the scheme and host in any case (RFC 3986, 6.2.2.1), the scheme's
     * default port (80 for http, 443 for https) spelt or not, and a trailing slash or none are one server; the rest
     * of the path counts, the query and fragment do not. A text `java.net.URI` cannot read, or one without a scheme
     * and host, is compared as written less its trailing slashes.
     */
    fun same(a: String, b: String): Boolean {
        val one = parts(a)
        val other = parts(b)
        if (one == null || other == null) return a.trimEnd('/') == b.trimEnd('/')
        return one.scheme.equals(other.scheme, ignoreCase = true) && one.host.equals(other.host, ignoreCase = true) &&
            one.port == other.port && one.path == other.path
    }

    /** What names the server, the port null when it is the scheme's default. */
    private class Parts(val scheme: String, val host: String, val port: Int?, val path: String)

    private fun parts(text: String): Parts? {
        val uri = try {
            URI(text.trim())
        } catch (e: URISyntaxException) {
            return null
        }
        val scheme = uri.scheme ?: return null
        val host = uri.host ?: return null
        val defaultPort = if (scheme.equals("https", ignoreCase = true)) 443 else 80
        val port = uri.port.takeIf { it != -1 && it != defaultPort }
        return Parts(scheme, host, port, uri.path.orEmpty().trimEnd('/'))
    }
}
