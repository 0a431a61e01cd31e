// COMPILE-ONLY mirror, NOT the library: javax.annotation.Nonnull of JSR-305 (com.google.code.findbugs:jsr305
// 3.0.2, an api dependency of React Native 0.79.0's ReactAndroid: packages/react-native/gradle/libs.versions.toml
// at tag v0.79.0). Codegen's Java specs import it. Its meta-annotations (TypeQualifier, `when`) are left out.
package javax.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/** Mirror of {@code Nonnull}: the annotated element is never null. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
public @interface Nonnull {}
