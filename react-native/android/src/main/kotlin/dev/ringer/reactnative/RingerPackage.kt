package dev.ringer.reactnative

import com.facebook.react.BaseReactPackage
import com.facebook.react.bridge.NativeModule
import com.facebook.react.bridge.ReactApplicationContext
import com.facebook.react.module.model.ReactModuleInfo
import com.facebook.react.module.model.ReactModuleInfoProvider

/**
 * The package React Native's autolinking adds to the app (it finds the class extending BaseReactPackage): one TurboModule,
 * `Ringer` ([RingerModule]), created when JavaScript first asks for it. The new architecture only: the module's
 * info says TurboModule.
 */
class RingerPackage : BaseReactPackage() {
    override fun getModule(name: String, reactContext: ReactApplicationContext): NativeModule? =
        if (name == NativeRingerSpec.NAME) RingerModule(reactContext) else null

    override fun getReactModuleInfoProvider(): ReactModuleInfoProvider = ReactModuleInfoProvider {
        mapOf(NativeRingerSpec.NAME to ReactModuleInfo(NativeRingerSpec.NAME, RingerModule::class.java.name,
            false, false, false, true))
    }
}
