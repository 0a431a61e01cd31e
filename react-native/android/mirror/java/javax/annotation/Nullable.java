// COMPILE-ONLY mirror, NOT the library: javax.annotation.Nullable of JSR-305 (com.google.code.findbugs:jsr305
// 3.0.2, an api dependency of React Native 0.79.0's ReactAndroid). Codegen's Java specs mark a nullable parameter
// (`before: string | null`) with it. Its meta-annotations are left out.
package javax.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/** Mirror of {@code Nullable}: the annotated element may be null. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
public @interface Nullable {}
