package dev.ringer.kit

/**
 * Sends one HTTP request for [RingerApiClient]. The SDK ships `dev.ringer.kit.okhttp.OkHttpTransport`;
 * tests and simulators supply their own.
 *
 * Implementations must be thread-safe and must not log the request's headers (they carry the user token).
 */
interface HttpTransport {
    /**
     * Performs a request.
     * @param method the HTTP method, e.g. `PUT`.
     * @param url the absolute URL, e.g. `http://127.0.0.1:8080/v1/calls`.
     * @param headers request headers, one value per name.
     * @param body the request body; null for none (an empty body is sent for methods that need one).
     * @return the status, headers (names lowercased) and body of whatever answer arrived, 4xx and 5xx included.
     * @throws java.io.IOException when no answer arrived (refused, DNS, TLS, timeout, reset).
     */
    suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse
}
