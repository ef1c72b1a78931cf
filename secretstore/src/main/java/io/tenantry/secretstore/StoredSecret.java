package io.tenantry.secretstore;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A secret read from the store: its data and its metadata. The data is copied in and out, so the
 * arrays a caller holds never alias the store's; {@link #toString()} shows the data keys only.
 */
public final class StoredSecret {

  private final SecretMetadata metadata;
  private final Map<String, byte[]> data;

  public StoredSecret(SecretMetadata metadata, Map<String, byte[]> data) {
    this.metadata = metadata;
    this.data = Collections.unmodifiableMap(copy(data));
  }

  public SecretMetadata metadata() {
    return metadata;
  }

  /** A fresh copy of the data, sorted by key. */
  public Map<String, byte[]> data() {
    return copy(data);
  }

  public Scope scope() {
    return metadata.scope();
  }

  public String name() {
    return metadata.name();
  }

  public String version() {
    return metadata.version();
  }

  public String contentHash() {
    return metadata.contentHash();
  }

  public Instant updated() {
    return metadata.updated();
  }

  private static Map<String, byte[]> copy(Map<String, byte[]> data) {
    Map<String, byte[]> copy = new TreeMap<>();
    data.forEach((key, value) -> copy.put(key, value.clone()));
    return copy;
  }

  @Override
  public String toString() {
    return "StoredSecret[" + metadata.path() + ", version " + metadata.version() + ", keys " + data.keySet() + "]";
  }
}
