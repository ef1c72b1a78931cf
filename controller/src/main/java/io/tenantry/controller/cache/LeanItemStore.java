package io.tenantry.controller.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * An informer's store that keeps each object without its {@code metadata.managedFields}: the
 * server-side apply bookkeeping is most of an object's size in memory, and the operator never
 * reads it (its writes are applies; the API server keeps the field ownership). For Tenants and
 * SparePools, which syncs and allocations read all the time; owned objects are kept in a
 * {@link CompactItemStore}.
 */
final class LeanItemStore<T extends HasMetadata> extends BasicItemStore<T> {

  LeanItemStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public T put(String key, T object) {
    object.getMetadata().setManagedFields(null);
    return super.put(key, object);
  }
}
