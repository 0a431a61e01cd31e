// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

/** Mirror of {@code android.os.Build}. */
public class Build {
    /** Mirror of {@code Build.VERSION}. */
    public static class VERSION {
        /**
         * As on a device, not a compile-time constant (Android reads it from a system property); here the
         * system property {@code mirror.sdk_int}, default 35. Adapters take the level as a parameter so tests
         * can try each.
         */
        public static final int SDK_INT = Integer.getInteger("mirror.sdk_int", 35);
    }

    /** Mirror of {@code Build.VERSION_CODES}. */
    public static class VERSION_CODES {
        public static final int M = 23;
        public static final int N = 24;
        public static final int N_MR1 = 25;
        public static final int O = 26;
        public static final int O_MR1 = 27;
        public static final int P = 28;
        public static final int Q = 29;
        public static final int R = 30;
        public static final int S = 31;
        public static final int S_V2 = 32;
        public static final int TIRAMISU = 33;
        public static final int UPSIDE_DOWN_CAKE = 34;
        public static final int VANILLA_ICE_CREAM = 35;
    }
}
