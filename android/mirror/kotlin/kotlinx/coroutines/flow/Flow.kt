// TEST-ONLY mirror of the two kotlinx.coroutines declarations Core-Telecom's API exposes, NOT kotlinx.coroutines:
// Debian's kotlinx-coroutines is 1.0.1, which predates Flow. Names and shapes as in kotlinx.coroutines 1.7+
// (kotlinx-coroutines-core/common/src/flow/Flow.kt, FlowCollector.kt), where FlowCollector is a `fun interface`;
// kotlinc 1.3 has no `fun interface`, which changes nothing for callers that pass an object, as the SDK does.
package kotlinx.coroutines.flow

/** Mirror of `Flow`: a cold stream of values, delivered to [collect]'s collector in order. */
interface Flow<out T> {
    /** Collects every value into [collector]; returns when the flow completes, throws when the collector does. */
    suspend fun collect(collector: FlowCollector<T>)
}

/** Mirror of `FlowCollector`. */
interface FlowCollector<in T> {
    /** Takes one value. */
    suspend fun emit(value: T)
}
