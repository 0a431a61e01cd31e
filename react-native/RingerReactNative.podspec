# The iOS native half of @ringer/react-native: the Swift host in ios/ (RingerReactNative, the event translator and
# relay) and the minimal Objective-C++ TurboModule glue (ios/RingerModule.mm), over
# RingerKitApple, which comes from this repository as a Swift package through React Native's `spm_dependency`
# (declared in react-native/scripts/react_native_pods.rb, kept by scripts/cocoapods/spm.rb). New architecture only.
require "json"

package = JSON.parse(File.read(File.join(__dir__, "package.json")))

# The Swift package: this repository, as package.json's `repository` names it (a string or `{"url": …}`, a leading
# `git+` dropped); the environment variable RINGER_SPM_URL, when set and not empty, wins and points a build at a fork
# or a mirror. With neither, `pod install` stops here and says how to give one.
repository = package["repository"]
repository = repository["url"] if repository.is_a?(Hash)
ringer_repository = ENV["RINGER_SPM_URL"].to_s
ringer_repository = repository.to_s.sub(/\Agit\+/, "") if ringer_repository.empty?
if ringer_repository.empty?
  raise "@ringer/react-native: no URL for the RingerKitApple Swift package: set the environment variable " \
        "RINGER_SPM_URL, or name the Ringer repository in @ringer/react-native's package.json \"repository\""
end

Pod::Spec.new do |s|
  s.name          = "RingerReactNative"
  s.version       = package["version"]
  s.summary       = package["description"] || "Ringer for React Native"
  s.homepage      = package["homepage"] || ringer_repository
  s.license       = package["license"] || "MIT"
  s.authors       = package["author"] || "Ringer"
  # RingerKitApple's floor (Package.swift: iOS 16).
  s.platforms     = { :ios => "16.0" }
  s.source        = { :git => ringer_repository, :tag => "v#{s.version}" }
  # Not ios/Expo: the Expo AppDelegate subscriber is its own pod (ios/Expo/RingerReactNativeExpo.podspec).
  s.source_files  = "ios/*.{h,m,mm,swift}"
  # RingerModule.h imports the codegen's Objective-C++ header: kept out of the module's umbrella header, which the
  # Swift half (and a client importing it, the Expo pod) reads as Objective-C (create-react-native-library does the
  # same). The Swift half's public API names no RingerKit type (its files import the package `internal`).
  s.private_header_files = "ios/*.h"
  s.swift_version = "6.0"
  # The Objective-C++ glue imports the Swift host through RingerReactNative-Swift.h.
  s.pod_target_xcconfig = { "DEFINES_MODULE" => "YES" }

  # React Native's TurboModule dependencies (React-Core, ReactCommon, the codegen output of RingerSpec, …).
  install_modules_dependencies(s)

  spm_dependency(s,
    url: ringer_repository,
    requirement: { kind: "upToNextMajorVersion", minimumVersion: s.version.to_s },
    products: ["RingerKitApple", "RingerKit", "RingerWire"]
  )
end
