package io.tenantry.controller.fakes;

import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretConflictException;
import io.tenantry.secretstore.SecretFormat;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.StoreUnavailableException;
import io.tenantry.secretstore.StoredSecret;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link SecretStore} in memory, with the same conditional-write contract, that can be made
 * unavailable (every call then fails as a bucket out of reach would) and counts its calls.
 */
public final class InMemorySecretStore implements SecretStore {

  private final Map<String, StoredSecret> secrets = new TreeMap<>();
  private final AtomicLong generations = new AtomicLong();
  private final AtomicInteger calls = new AtomicInteger();
  private volatile boolean unavailable;

  public void setUnavailable(boolean unavailable) {
    this.unavailable = unavailable;
  }

  /** Calls made so far, failed ones included. */
  public int calls() {
    return calls.get();
  }

  @Override
  public synchronized Optional<StoredSecret> get(Scope scope, String name) {
    check();
    return Optional.ofNullable(secrets.get(SecretFormat.path(scope, name)));
  }

  @Override
  public synchronized List<SecretMetadata> list(Scope scope) {
    check();
    List<SecretMetadata> result = new ArrayList<>();
    secrets.values().stream().filter(s -> s.scope().equals(scope)).forEach(s -> result.add(s.metadata()));
    return result;
  }

  @Override
  public synchronized String put(Scope scope, String name, Map<String, byte[]> data) {
    check();
    return store(scope, name, data);
  }

  @Override
  public synchronized String create(Scope scope, String name, Map<String, byte[]> data) {
    check();
    if (secrets.containsKey(SecretFormat.path(scope, name))) {
      throw new SecretConflictException(SecretFormat.path(scope, name), SecretFormat.path(scope, name) + " exists", null);
    }
    return store(scope, name, data);
  }

  @Override
  public synchronized String replace(Scope scope, String name, Map<String, byte[]> data, String expectedVersion) {
    check();
    StoredSecret current = secrets.get(SecretFormat.path(scope, name));
    if (current == null || !current.version().equals(expectedVersion)) {
      throw new SecretConflictException(SecretFormat.path(scope, name), SecretFormat.path(scope, name) + " changed", null);
    }
    return store(scope, name, data);
  }

  @Override
  public synchronized boolean delete(Scope scope, String name) {
    check();
    return secrets.remove(SecretFormat.path(scope, name)) != null;
  }

  @Override
  public synchronized int deleteScope(Scope scope) {
    check();
    List<String> paths = secrets.values().stream().filter(s -> s.scope().equals(scope)).map(s -> s.metadata().path()).toList();
    paths.forEach(secrets::remove);
    return paths.size();
  }

  @Override
  public String location() {
    return "memory:";
  }

  private String store(Scope scope, String name, Map<String, byte[]> data) {
    String version = Long.toString(generations.incrementAndGet());
    SecretMetadata metadata = new SecretMetadata(scope, name, version, SecretFormat.contentHash(data), Instant.EPOCH);
    secrets.put(SecretFormat.path(scope, name), new StoredSecret(metadata, data));
    return version;
  }

  private void check() {
    calls.incrementAndGet();
    if (unavailable) {
      throw new StoreUnavailableException("secret store memory: unreachable", null);
    }
  }
}
