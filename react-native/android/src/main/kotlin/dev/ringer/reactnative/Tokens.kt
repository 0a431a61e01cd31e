package dev.ringer.reactnative

import dev.ringer.kit.HttpResponse
import dev.ringer.kit.HttpTransport
import dev.ringer.kit.RingerApiClient
import java.io.IOException

/** User tokens, read as the SDK reads them. */
internal object Tokens {
    /** A transport for a client that only reads its token: it never sends. */
    private val neverSends = object : HttpTransport {
        override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse =
            throw IOException("a token reader sends nothing")
    }

    /**
     * The token's `sub` claim, read without verifying the signature as the SDK does (`RingerApiClient.userId`: the
     * server verifies); null when it is not a compact JWT with a string `sub`.
     */
    fun subject(token: String): String? = RingerApiClient("http://localhost", token, neverSends).userId
}
