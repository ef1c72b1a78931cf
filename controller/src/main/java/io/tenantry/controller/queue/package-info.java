/**
 * A rate-limited work queue with the semantics of client-go's {@code k8s.io/client-go/util/workqueue}.
 *
 * <p>Layers, each adding to the one before it, as in client-go:
 * <ul>
 *   <li>{@link io.tenantry.controller.queue.WorkQueue}: a FIFO of distinct items; an item is never
 *       handed to two workers at once, and an item added while it is being processed is processed
 *       once more after {@code done}.</li>
 *   <li>{@link io.tenantry.controller.queue.DelayingQueue}: adds {@code addAfter}.</li>
 *   <li>{@link io.tenantry.controller.queue.RateLimitingQueue}: adds {@code addRateLimited},
 *       {@code forget} and {@code numRequeues} on top of a
 *       {@link io.tenantry.controller.queue.RateLimiter}.</li>
 * </ul>
 *
 * <p>Beside the queue, its consumer: {@link io.tenantry.controller.queue.Workers} take keys, call a
 * sync that answers with a {@link io.tenantry.controller.queue.SyncResult}, and re-queue the key as
 * that result (or a failure) says.
 *
 * <p>Items are compared with {@code equals}/{@code hashCode} (client-go's {@code comparable}); they
 * must be immutable while in a queue and may not be {@code null}. Time comes from a
 * {@link io.tenantry.controller.queue.Ticker} so tests can drive it.
 */
package io.tenantry.controller.queue;
