# The Expo half of @ringer/react-native's iOS side: RingerAppDelegateSubscriber, which starts RingerReactNative at
# launch through Expo's ExpoAppDelegate (SDK 53+). Expo's autolinking installs it from the package's
# expo-module.config.json (`apple.podspecPath`), in Expo apps only; bare React Native apps never see ExpoModulesCore.
require "json"

package = JSON.parse(File.read(File.join(__dir__, "..", "..", "package.json")))

Pod::Spec.new do |s|
  s.name             = "RingerReactNativeExpo"
  s.version          = package["version"]
  s.summary          = "Starts Ringer's native half at launch in Expo apps"
  s.homepage         = package["homepage"] || "https://github.com/"
  s.license          = package["license"] || "MIT"
  s.authors          = package["author"] || "Ringer"
  s.platforms        = { :ios => "16.0" }
  s.source           = { :git => "" }
  s.source_files     = "*.swift"
  s.swift_version    = "6.0"
  s.static_framework = true

  s.dependency "ExpoModulesCore"
  s.dependency "RingerReactNative"
end
