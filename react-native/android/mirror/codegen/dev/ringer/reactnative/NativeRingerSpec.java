// COMPILE-ONLY stand-in for a GENERATED file: what react-native-codegen's Java generator
// (packages/react-native-codegen/src/generators/modules/GenerateModuleJavaSpec.js, the same template from tag v0.76.0
// to v0.86.0) emits for the spec react-native/src/NativeRinger.ts as docs/react-native.md ("Methods", "Events"; the
// events' shapes also in TestVectors/react-native) defines it, with codegenConfig {name: "RingerSpec",
// android.javaPackageName: "dev.ringer.reactnative"}. In a real build codegen writes it to android/build/generated/source/codegen/java/dev/ringer/reactnative/ and this file is not
// used. What the generator does, and this file copies:
// - the class is the spec file's name plus "Spec", abstract, extends ReactContextBaseJavaModule, implements TurboModule;
//   NAME is the name given to TurboModuleRegistry.getEnforcing ("Ringer"), getName() returns it;
// - each event emitter becomes `protected final void emit<Name>(<type> value)` calling
//   `mEventEmitterCallback.invoke("<name>", value)` WITHOUT a null check: the callback is set only when JavaScript
//   looks the module up, so emitting earlier throws NullPointerException (RingerModule emits only after JavaScript
//   called getInitialEvents, through EventRelay); an object payload is a ReadableMap;
// - each method returning a Promise becomes `public abstract void <name>(<params>, Promise promise)` annotated
//   @ReactMethod and @DoNotStrip: string -> String, boolean -> boolean, number -> double, object -> ReadableMap,
//   an array (string[]) -> ReadableArray;
// - before v0.84.0 the generator refuses an event emitter whose payload is a union type (v0.84.0 maps a union of
//   objects to ReadableMap), so for 0.79 the spec declares the event payload as one object type.
package dev.ringer.reactnative;

import com.facebook.proguard.annotations.DoNotStrip;
import javax.annotation.Nullable;
import com.facebook.react.bridge.Promise;
import com.facebook.react.bridge.ReactApplicationContext;
import com.facebook.react.bridge.ReactContextBaseJavaModule;
import com.facebook.react.bridge.ReactMethod;
import com.facebook.react.bridge.ReadableArray;
import com.facebook.react.bridge.ReadableMap;
import com.facebook.react.turbomodule.core.interfaces.TurboModule;
import javax.annotation.Nonnull;

public abstract class NativeRingerSpec extends ReactContextBaseJavaModule implements TurboModule {
  public static final String NAME = "Ringer";

  public NativeRingerSpec(ReactApplicationContext reactContext) {
    super(reactContext);
  }

  @Override
  public @Nonnull String getName() {
    return NAME;
  }

  protected final void emitOnEvent(ReadableMap value) {
    mEventEmitterCallback.invoke("onEvent", value);
  }

  @ReactMethod
  @DoNotStrip
  public abstract void configure(ReadableMap options, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void getInitialEvents(Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void login(String userToken, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void logout(Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void startCall(String callee, boolean video, String callWaiting, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void startGroupCall(ReadableArray callees, boolean video, String answerPolicy, String callWaiting,
      Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void ringMore(String callId, ReadableArray callees, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void answer(String callId, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void decline(String callId, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void hangUp(String callId, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void getCalls(Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void getReadiness(Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void openReadinessSettings(String problem, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void getCallHistory(double limit, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void setHeld(String callId, boolean held, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void getRecentCalls(double limit, @Nullable String before, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void setMuted(String callId, boolean muted, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void playDtmf(String callId, String digits, Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void getAudioRoutes(Promise promise);

  @ReactMethod
  @DoNotStrip
  public abstract void setAudioRoute(String outputId, Promise promise);
}
