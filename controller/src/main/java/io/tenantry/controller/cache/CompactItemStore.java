package io.tenantry.controller.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * An informer's store that keeps each object without its {@code metadata.managedFields} (the
 * operator never reads them: its writes are applies, and the API server keeps the field
 * ownership), and that can keep an object as deflated JSON instead of decoded ({@link #compact}).
 * A decoded object graph costs about five times its JSON in heap, while a converged tenant's
 * objects are not read until something about the tenant changes; so the objects of converged
 * tenants are kept compact, and those of tenants in flux decoded, where reads are frequent. A
 * compact object is decoded again on each read (about 0.1 ms for a Deployment); an update from the
 * watch stores it decoded. The identity of every object (uid and resourceVersion) is at hand
 * either way: it is all a converged sync reads ({@link #identity}). As from any informer's store,
 * what a read returns must not be modified.
 */
final class CompactItemStore<T extends HasMetadata> implements ItemStore<T> {

  /** One object: decoded ({@code object}) or deflated JSON ({@code json}), and its identity. */
  private record Entry<T>(String uid, String resourceVersion, T object, byte[] json) {
  }

  private final ConcurrentHashMap<String, Entry<T>> entries = new ConcurrentHashMap<>();
  private final Class<T> type;
  private final KubernetesSerialization serialization;

  CompactItemStore(Class<T> type, KubernetesSerialization serialization) {
    this.type = type;
    this.serialization = serialization;
  }

  @Override
  public String getKey(T object) {
    return Cache.metaNamespaceKeyFunc(object);
  }

  @Override
  public T put(String key, T object) {
    object.getMetadata().setManagedFields(null);
    return decode(entries.put(key, new Entry<>(object.getMetadata().getUid(), object.getMetadata().getResourceVersion(), object, null)));
  }

  @Override
  public T remove(String key) {
    return decode(entries.remove(key));
  }

  @Override
  public Stream<String> keySet() {
    return entries.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return entries.values().stream().map(this::decode);
  }

  @Override
  public int size() {
    return entries.size();
  }

  @Override
  public T get(String key) {
    return decode(entries.get(key));
  }

  /**
   * Keeps the object under {@code key} as deflated JSON from now on, unless the watch replaces it
   * meanwhile (then the newer object stays decoded).
   */
  void compact(String key) {
    Entry<T> live = entries.get(key);
    if (live == null || live.object() == null) {
      return;
    }
    Entry<T> compact = new Entry<>(live.uid(), live.resourceVersion(), null,
        deflate(serialization.asJson(live.object()).getBytes(StandardCharsets.UTF_8)));
    entries.computeIfPresent(key, (k, current) -> current == live ? compact : current);
  }

  /**
   * What {@link ClusterView#fingerprint} sums for the object under {@code key} (0 when there is
   * none), read without decoding it.
   */
  long identity(String key) {
    Entry<T> entry = entries.get(key);
    return entry == null ? 0 : ClusterView.identity(entry.uid(), entry.resourceVersion());
  }

  private T decode(Entry<T> entry) {
    if (entry == null) {
      return null;
    }
    if (entry.object() != null) {
      return entry.object();
    }
    Inflater inflater = new Inflater(true);
    try (InputStream json = new InflaterInputStream(new ByteArrayInputStream(entry.json()), inflater)) {
      return serialization.unmarshal(json, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      inflater.end();
    }
  }

  private static byte[] deflate(byte[] json) {
    // The fastest level: most of the saving is the decoded graph left behind.
    Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
    try {
      deflater.setInput(json);
      deflater.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream(json.length / 2 + 64);
      byte[] buffer = new byte[4096];
      while (!deflater.finished()) {
        out.write(buffer, 0, deflater.deflate(buffer));
      }
      return out.toByteArray();
    } finally {
      deflater.end();
    }
  }
}
