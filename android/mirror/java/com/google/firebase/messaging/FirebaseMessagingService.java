// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package com.google.firebase.messaging;

import android.app.Service;
import android.content.Intent;
import android.os.IBinder;

/**
 * Mirror of Firebase's {@code FirebaseMessagingService} (on a device it extends EnhancedIntentService, itself a
 * Service, and calls these on a background thread). The tests call them as the library would.
 */
public class FirebaseMessagingService extends Service {
    public FirebaseMessagingService() {}

    @Override public final IBinder onBind(Intent intent) { return null; }

    public void onMessageReceived(RemoteMessage message) {}
    public void onDeletedMessages() {}
    public void onNewToken(String token) {}
}
