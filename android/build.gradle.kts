// RingerKit for Android as an Android library module, for Android Studio and Gradle users.
//
// NOT BUILT ON THE CI MACHINE: it has no Android SDK and no Gradle. There, android/Makefile compiles the same
// sources with kotlinc against a test-only mirror of the Android and Firebase APIs and runs the JUnit tests
// (docs/android-integration.md, "What exists, and what CI builds and runs here"). Keep the versions below in
// step with what the sources need: coroutines (written against 1.0's API), OkHttp 3 (3.14.9, the last 3.x,
// whose Kotlin-facing API the transports use), Firebase Cloud Messaging.
// No versions here: an app that includes this module decides them in its own settings; built alone, this
// folder's settings.gradle.kts pins them.
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "dev.ringer.android"
    compileSdk = 35

    defaultConfig {
        // API 26: self-managed ConnectionService from 26, notification channels from 26.
        minSdk = 26
    }
    // Tested against Android 15's rules (foreground service types, full-screen intent, notification trampolines).
    testOptions.targetSdk = 35
    lint.targetSdk = 35

    sourceSets["main"].java.srcDirs("src/main/kotlin")
    sourceSets["main"].manifest.srcFile("src/main/AndroidManifest.xml")
    // Only the pure-Kotlin core's tests run under Gradle: the adapter and end-to-end tests need the mirror
    // (android/mirror) and the ringer binary, which `make -C android test` provides.
    sourceSets["test"].java.srcDirs("src/test/kotlin")
    sourceSets["test"].java.exclude("dev/ringer/android/**", "dev/ringer/e2e/**")
    // The shared test vectors the Kotlin machine must pass (docs/test-vectors.md), as android/Makefile passes them.
    testOptions.unitTests.all { it.systemProperty("ringer.vectors", file("../TestVectors/phone-call").absolutePath) }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }
}

kotlin {
    compilerOptions {
        jvmTarget.set(org.jetbrains.kotlin.gradle.dsl.JvmTarget.JVM_1_8)
    }
}

dependencies {
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-android:1.8.1")
    // OkHttp 3.14, 4.x or 5.x: the SDK's OkHttp-facing Kotlin builds against each (the calls whose Kotlin spelling
    // changed in 4.x go through OkHttpCalls.java). At least 3.14.9; 4.12.0 when the app asks for none; the app's own
    // choice wins otherwise (Gradle takes the highest any module requires), so no major is forced on it.
    implementation("com.squareup.okhttp3:okhttp") {
        version {
            require("3.14.9")
            prefer("4.12.0")
        }
    }
    implementation("com.google.firebase:firebase-messaging:24.1.0")
    // CallUiKind.CORE_TELECOM's call UI (CoreTelecomCallUi); the ConnectionService one needs nothing more.
    implementation("androidx.core:core-telecom:1.0.0")
    testImplementation("junit:junit:4.13.2")
    // android.jar's org.json throws in local unit tests; the reference implementation stands in.
    testImplementation("org.json:json:20240303")
}
