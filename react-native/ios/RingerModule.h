// NOT COMPILED ON THIS MACHINE: there is no Xcode, React Native or codegen output on Linux. This glue only
// forwards to the Swift host (RingerModuleBridge → RingerReactNative), where every decision is made; keep it so.
// Shapes checked against facebook/react-native's codegen (GenerateModuleObjCpp: `<Name>Spec` protocol,
// `<Name>SpecBase` with `emit<Event>:`, `<Name>SpecJSI`) for React Native 0.79+.

#import <React/RCTInvalidating.h>
#import <RingerSpec/RingerSpec.h>

NS_ASSUME_NONNULL_BEGIN

/// The `Ringer` TurboModule (new architecture only). Its event emitter `onEvent` comes from the codegen base class.
@interface RingerModule : NativeRingerSpecBase <NativeRingerSpec, RCTInvalidating>
@end

NS_ASSUME_NONNULL_END
