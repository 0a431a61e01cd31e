// NOT COMPILED ON THIS MACHINE: there is no Xcode, React Native or codegen output on Linux. Each method forwards to
// RingerModuleBridge (Swift), which hands the call to RingerReactNative; no decision is made here.
// The codegen names follow from src/NativeRinger.ts (codegenConfig name "RingerSpec"): the module `NativeRinger`,
// the inline `configure` options struct `JS::NativeRinger::SpecConfigureOptions` (GenerateModuleObjCpp names an inline
// object parameter `Spec<Method><Param>`; `server: string | null` reads as `NSString *server()`), selectors from the
// parameter names, and `emitOnEvent:(NSDictionary *)` from `readonly onEvent: EventEmitter<UnsafeObject>`.

#import "RingerModule.h"

// The Swift host's Objective-C face (RingerModuleBridge.swift). The Expo subscriber lives in another pod
// (ios/Expo), so this module's generated header declares nothing but Foundation subclasses.
#if __has_include(<RingerReactNative/RingerReactNative-Swift.h>)
#import <RingerReactNative/RingerReactNative-Swift.h>
#else
#import "RingerReactNative-Swift.h"
#endif

@implementation RingerModule {
  /// This instance's attachment to the event relay (0: none yet).
  NSInteger _attachment;
}

RCT_EXPORT_MODULE(Ringer)

+ (BOOL)requiresMainQueueSetup
{
  return NO;
}

- (std::shared_ptr<facebook::react::TurboModule>)getTurboModule:
    (const facebook::react::ObjCTurboModule::InitParams &)params
{
  return std::make_shared<facebook::react::NativeRingerSpecJSI>(params);
}

- (void)invalidate
{
  [RingerModuleBridge detach:_attachment];
}

- (void)configure:(JS::NativeRinger::SpecConfigureOptions &)options
          resolve:(RCTPromiseResolveBlock)resolve
           reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge configure:options.server() resolve:resolve reject:reject];
}

- (void)getInitialEvents:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  __weak RingerModule *weakSelf = self;
  _attachment = [RingerModuleBridge attachWithEmitter:^(NSDictionary<NSString *, id> *event) {
    [weakSelf emitOnEvent:event];
  }
                                              resolve:resolve];
}

- (void)login:(NSString *)userToken resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge login:userToken resolve:resolve reject:reject];
}

- (void)logout:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge logoutWithResolve:resolve reject:reject];
}

- (void)startCall:(NSString *)callee
            video:(BOOL)video
      callWaiting:(NSString *)callWaiting
          resolve:(RCTPromiseResolveBlock)resolve
           reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge startCall:callee video:video callWaiting:callWaiting resolve:resolve reject:reject];
}

- (void)startGroupCall:(NSArray *)callees
                 video:(BOOL)video
          answerPolicy:(NSString *)answerPolicy
           callWaiting:(NSString *)callWaiting
               resolve:(RCTPromiseResolveBlock)resolve
                reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge startGroupCall:callees
                               video:video
                        answerPolicy:answerPolicy
                         callWaiting:callWaiting
                             resolve:resolve
                              reject:reject];
}

- (void)getRecentCalls:(double)limit
                before:(NSString *_Nullable)before
               resolve:(RCTPromiseResolveBlock)resolve
                reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge recentCalls:limit before:before resolve:resolve reject:reject];
}

- (void)ringMore:(NSString *)callId
         callees:(NSArray *)callees
         resolve:(RCTPromiseResolveBlock)resolve
          reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge ringMore:callId callees:callees resolve:resolve reject:reject];
}

- (void)answer:(NSString *)callId resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge answer:callId resolve:resolve reject:reject];
}

- (void)decline:(NSString *)callId resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge decline:callId resolve:resolve reject:reject];
}

- (void)hangUp:(NSString *)callId resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge hangUp:callId resolve:resolve reject:reject];
}

- (void)setHeld:(NSString *)callId held:(BOOL)held resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge setHeld:callId held:held resolve:resolve reject:reject];
}

- (void)setMuted:(NSString *)callId muted:(BOOL)muted resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge setMuted:callId muted:muted resolve:resolve reject:reject];
}

- (void)playDtmf:(NSString *)callId
          digits:(NSString *)digits
         resolve:(RCTPromiseResolveBlock)resolve
          reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge playDtmf:callId digits:digits resolve:resolve reject:reject];
}

- (void)getAudioRoutes:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge audioRoutesWithResolve:resolve reject:reject];
}

- (void)setAudioRoute:(NSString *)outputId resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge setAudioRoute:outputId resolve:resolve reject:reject];
}

- (void)getCalls:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge callsWithResolve:resolve reject:reject];
}

- (void)getReadiness:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge readinessWithResolve:resolve reject:reject];
}

- (void)openReadinessSettings:(NSString *)problem
                      resolve:(RCTPromiseResolveBlock)resolve
                       reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge openReadinessSettings:problem resolve:resolve reject:reject];
}

- (void)getCallHistory:(double)limit resolve:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject
{
  [RingerModuleBridge callHistory:limit resolve:resolve reject:reject];
}

@end
