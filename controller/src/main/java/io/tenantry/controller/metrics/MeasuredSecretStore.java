package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.metrics.StoreCalls.Outcome;
import io.tenantry.secretstore.CorruptSecretException;
import io.tenantry.secretstore.InvalidInputException;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretConflictException;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.StoreUnavailableException;
import io.tenantry.secretstore.StoredSecret;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The secret store, each call timed under {@code store="secrets"} ({@link StoreCalls}), its
 * failures sorted by the store's own exception types. Behaves exactly as the store it wraps.
 */
public final class MeasuredSecretStore implements SecretStore {

  private final SecretStore store;
  private final StoreCalls calls;

  public MeasuredSecretStore(SecretStore store, MeterRegistry registry) {
    this.store = store;
    this.calls = new StoreCalls(registry, StoreCalls.SECRETS);
  }

  /** What a failure of the store means for the store-unavailable alert. */
  static Outcome outcome(RuntimeException failure) {
    if (failure instanceof StoreUnavailableException) {
      return Outcome.UNAVAILABLE;
    }
    if (failure instanceof KeyUnavailableException) {
      return Outcome.KEY_UNAVAILABLE;
    }
    if (failure instanceof CorruptSecretException) {
      return Outcome.CORRUPT;
    }
    if (failure instanceof SecretConflictException) {
      return Outcome.CONFLICT;
    }
    return failure instanceof InvalidInputException ? Outcome.INVALID : Outcome.ERROR;
  }

  @Override
  public Optional<StoredSecret> get(Scope scope, String name) {
    return calls.time("get", () -> store.get(scope, name), MeasuredSecretStore::outcome);
  }

  @Override
  public List<SecretMetadata> list(Scope scope) {
    return calls.time("list", () -> store.list(scope), MeasuredSecretStore::outcome);
  }

  @Override
  public String put(Scope scope, String name, Map<String, byte[]> data) {
    return calls.time("put", () -> store.put(scope, name, data), MeasuredSecretStore::outcome);
  }

  @Override
  public String create(Scope scope, String name, Map<String, byte[]> data) {
    return calls.time("create", () -> store.create(scope, name, data), MeasuredSecretStore::outcome);
  }

  @Override
  public String replace(Scope scope, String name, Map<String, byte[]> data, String expectedVersion) {
    return calls.time("replace", () -> store.replace(scope, name, data, expectedVersion), MeasuredSecretStore::outcome);
  }

  @Override
  public boolean delete(Scope scope, String name) {
    return calls.time("delete", () -> store.delete(scope, name), MeasuredSecretStore::outcome);
  }

  @Override
  public int deleteScope(Scope scope) {
    return calls.time("deleteScope", () -> store.deleteScope(scope), MeasuredSecretStore::outcome);
  }

  @Override
  public String location() {
    return store.location();
  }
}
