// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

import java.util.ArrayList;
import java.util.List;

/** Mirror of {@code android.telecom.PhoneAccount}. */
public final class PhoneAccount {
    public static final int CAPABILITY_VIDEO_CALLING = 0x8;
    public static final int CAPABILITY_SUPPORTS_VIDEO_CALLING = 0x400;
    /** API 26. */
    public static final int CAPABILITY_SELF_MANAGED = 0x800;
    public static final String SCHEME_TEL = "tel";
    public static final String SCHEME_SIP = "sip";

    private final PhoneAccountHandle mHandle;
    private final CharSequence mLabel;
    private final int mCapabilities;
    private final List<String> mSchemes;

    private PhoneAccount(Builder b) {
        mHandle = b.mHandle;
        mLabel = b.mLabel;
        mCapabilities = b.mCapabilities;
        mSchemes = new ArrayList<String>(b.mSchemes);
    }

    public static Builder builder(PhoneAccountHandle accountHandle, CharSequence label) {
        return new Builder(accountHandle, label);
    }

    public PhoneAccountHandle getAccountHandle() { return mHandle; }
    public CharSequence getLabel() { return mLabel; }
    public int getCapabilities() { return mCapabilities; }
    public boolean hasCapabilities(int capability) { return (mCapabilities & capability) == capability; }
    public List<String> getSupportedUriSchemes() { return mSchemes; }

    /** Mirror of {@code PhoneAccount.Builder}. */
    public static class Builder {
        private final PhoneAccountHandle mHandle;
        private final CharSequence mLabel;
        private int mCapabilities;
        private final List<String> mSchemes = new ArrayList<String>();

        public Builder(PhoneAccountHandle accountHandle, CharSequence label) {
            mHandle = accountHandle;
            mLabel = label;
        }

        public Builder setCapabilities(int value) { mCapabilities = value; return this; }
        public Builder addSupportedUriScheme(String uriScheme) { mSchemes.add(uriScheme); return this; }
        public PhoneAccount build() { return new PhoneAccount(this); }
    }
}
