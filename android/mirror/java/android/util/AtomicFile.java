// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.util;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;

/**
 * Mirror of {@code android.util.AtomicFile} (API 17): a file replaced whole. Writes go to "{name}.new", which
 * finishWrite syncs and renames over the file, so a reader sees the old content or the new; a ".new" file left by a
 * write that never finished is ignored. Missing parent folders are created, as Android's startWrite does.
 */
public class AtomicFile {
    private final File mBaseName;
    private final File mNewName;

    public AtomicFile(File baseName) {
        mBaseName = baseName;
        mNewName = new File(baseName.getPath() + ".new");
    }

    public File getBaseFile() { return mBaseName; }

    public void delete() {
        mBaseName.delete();
        mNewName.delete();
    }

    public FileOutputStream startWrite() throws IOException {
        File parent = mNewName.getParentFile();
        if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
            throw new IOException("Failed to create directory for " + mNewName);
        }
        return new FileOutputStream(mNewName);
    }

    public void finishWrite(FileOutputStream str) {
        if (str == null) return;
        try {
            str.getFD().sync();
            str.close();
            if (!mNewName.renameTo(mBaseName)) throw new IOException("Failed to rename " + mNewName + " to " + mBaseName);
        } catch (IOException e) {
            mNewName.delete();
        }
    }

    public void failWrite(FileOutputStream str) {
        if (str == null) return;
        try {
            str.close();
        } catch (IOException e) {
            // Closing failed: the new file goes all the same.
        }
        mNewName.delete();
    }

    public FileInputStream openRead() throws FileNotFoundException { return new FileInputStream(mBaseName); }

    public byte[] readFully() throws IOException {
        FileInputStream in = openRead();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            int count;
            while ((count = in.read(buffer)) > 0) out.write(buffer, 0, count);
            return out.toByteArray();
        } finally {
            in.close();
        }
    }
}
