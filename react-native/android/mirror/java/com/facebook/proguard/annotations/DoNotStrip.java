// COMPILE-ONLY mirror, NOT the library: com.facebook.proguard.annotations.DoNotStrip from the artifact
// com.facebook.yoga:proguard-annotations 1.19.0, which React Native 0.79.0's ReactAndroid depends on
// (packages/react-native/gradle/libs.versions.toml at tag v0.79.0); that artifact's source is not in the tag, so
// targets and retention follow fbjni's DoNotStrip of the same name. Codegen's Java specs import it.
package com.facebook.proguard.annotations;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Mirror of {@code DoNotStrip}: keeps a member through ProGuard/R8. */
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.METHOD, ElementType.CONSTRUCTOR})
@Retention(RetentionPolicy.CLASS)
public @interface DoNotStrip {}
