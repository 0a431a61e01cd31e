// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.net;

/** Mirror of {@code android.net.Uri}: opaque URIs as {@code fromParts} builds them. */
public abstract class Uri {
    Uri() {}

    public abstract String getScheme();
    public abstract String getSchemeSpecificPart();

    public static Uri fromParts(String scheme, String ssp, String fragment) {
        return new Opaque(scheme, ssp, fragment);
    }

    private static final class Opaque extends Uri {
        private final String scheme;
        private final String ssp;
        private final String fragment;

        Opaque(String scheme, String ssp, String fragment) {
            this.scheme = scheme;
            this.ssp = ssp;
            this.fragment = fragment;
        }

        @Override public String getScheme() { return scheme; }
        @Override public String getSchemeSpecificPart() { return ssp; }
        @Override public String toString() { return scheme + ":" + ssp + (fragment == null ? "" : "#" + fragment); }
        @Override public boolean equals(Object o) { return o instanceof Uri && toString().equals(o.toString()); }
        @Override public int hashCode() { return toString().hashCode(); }
    }
}
