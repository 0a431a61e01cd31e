package dev.ringer.kit.okhttp;

import java.io.IOException;

import okhttp3.Headers;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * The few OkHttp calls whose Kotlin spelling changed between OkHttp 3 and 4, made from Java.
 *
 * <p>OkHttp 4 rewrote the library in Kotlin and turned {@code response.code()}, {@code body()}, {@code headers()}
 * and {@code headers.size()} into properties; in Kotlin the 3.x method form no longer compiles against 4.x, and the
 * property form does not compile against 3.x. Java sees the same methods in both (OkHttp 4 keeps them with
 * {@code @get:JvmName}), so the SDK's Kotlin calls OkHttp through here and builds against whichever major the app
 * resolves (docs/android-integration.md, "OkHttp, coroutines and Firebase").
 */
final class OkHttpCalls {
    private OkHttpCalls() {}

    /** The HTTP status code of {@code response}. */
    static int code(Response response) {
        return response.code();
    }

    /**
     * The whole body of {@code response}, empty when it has none.
     * @throws IOException when the body cannot be read.
     */
    static byte[] bodyBytes(Response response) throws IOException {
        ResponseBody body = response.body();
        return body == null ? new byte[0] : body.bytes();
    }

    /** How many header fields {@code response} has (a field repeated counts each time). */
    static int headerCount(Response response) {
        return response.headers().size();
    }

    /** The name of header field {@code index} of {@code response}, as received. */
    static String headerName(Response response, int index) {
        Headers headers = response.headers();
        return headers.name(index);
    }

    /** The value of header field {@code index} of {@code response}. */
    static String headerValue(Response response, int index) {
        Headers headers = response.headers();
        return headers.value(index);
    }

    /**
     * A request body of {@code bytes} with no media type, so the caller's {@code Content-Type} header stands.
     * OkHttp 4 deprecates this form in Kotlin only (its replacement, {@code toRequestBody}, does not exist in 3.x).
     */
    @SuppressWarnings("deprecation")
    static RequestBody requestBody(byte[] bytes) {
        return RequestBody.create(null, bytes);
    }
}
