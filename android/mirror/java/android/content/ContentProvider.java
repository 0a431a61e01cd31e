// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

import android.database.Cursor;
import android.net.Uri;

/**
 * Mirror of {@code android.content.ContentProvider}: its abstract methods and its context. Android creates an app's
 * providers and calls {@code onCreate} before {@code Application.onCreate} and before any activity, service or
 * receiver of a new process (ActivityThread.handleBindApplication: installContentProviders, then the Application).
 */
public abstract class ContentProvider {
    private Context mContext;

    public ContentProvider() {}

    /** The context the system attached (the application's), null before. */
    public final Context getContext() { return mContext; }

    public abstract boolean onCreate();
    public abstract Cursor query(Uri uri, String[] projection, String selection, String[] selectionArgs, String sortOrder);
    public abstract String getType(Uri uri);
    public abstract Uri insert(Uri uri, ContentValues values);
    public abstract int delete(Uri uri, String selection, String[] selectionArgs);
    public abstract int update(Uri uri, ContentValues values, String selection, String[] selectionArgs);

    /** Mirror only: what the system's {@code attachInfo} does for a new process: attaches the context, then onCreate. */
    public final boolean mirrorAttachInfo(Context context) {
        mContext = context;
        return onCreate();
    }
}
