# The Expo half of @ringer/react-native's iOS side: RingerAppDelegateSubscriber, which starts RingerReactNative at
# launch through Expo's ExpoAppDelegate (SDK 53+). Expo's autolinking installs it from the package's
# expo-module.config.json (`apple.podspecPath`), in Expo apps only; bare React Native apps never see ExpoModulesCore.
require "json"

package = JSON.parse(File.read(File.join(__dir__, "..", "..", "package.json")))

# The Ringer repository, found as RingerReactNative.podspec finds it (the package ships podspecs only, so the rule is
# written again here): RINGER_SPM_URL when set and not empty, else package.json's `repository` (a string or
# `{"url": …}`, a leading `git+` dropped); with neither, `pod install` stops here and says how to give one.
repository = package["repository"]
repository = repository["url"] if repository.is_a?(Hash)
ringer_repository = ENV["RINGER_SPM_URL"].to_s
ringer_repository = repository.to_s.sub(/\Agit\+/, "") if ringer_repository.empty?
if ringer_repository.empty?
  raise "@ringer/react-native: no URL for the RingerKitApple Swift package: set the environment variable " \
        "RINGER_SPM_URL, or name the Ringer repository in @ringer/react-native's package.json \"repository\""
end

Pod::Spec.new do |s|
  s.name             = "RingerReactNativeExpo"
  s.version          = package["version"]
  s.summary          = "Starts Ringer's native half at launch in Expo apps"
  s.homepage         = package["homepage"] || ringer_repository
  s.license          = package["license"] || "MIT"
  s.authors          = package["author"] || "Ringer"
  s.platforms        = { :ios => "16.0" }
  s.source           = { :git => ringer_repository, :tag => "v#{s.version}" }
  s.source_files     = "*.swift"
  s.swift_version    = "6.0"
  s.static_framework = true
  # RingerReactNative's API names no RingerKit, RingerKitApple or RingerWire type (its files import them
  # `internal`), but CocoaPods builds it without library evolution, and then Swift makes every client load even a
  # module's internal imports (SE-0409; without them: "missing required module 'RingerKit'"). React Native's
  # spm_dependency gives only RingerReactNative the folder where Xcode puts the Swift package's modules; this pod
  # gets the same folder (scripts/cocoapods/spm.rb's SWIFT_INCLUDE_PATHS), without linking the package a second time.
  s.pod_target_xcconfig = {
    "SWIFT_INCLUDE_PATHS" => "$(inherited) ${SYMROOT}/${CONFIGURATION}${EFFECTIVE_PLATFORM_NAME}/"
  }

  s.dependency "ExpoModulesCore"
  s.dependency "RingerReactNative"
end
