package io.tenantry.controller.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.InMemorySecretStore;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Reason;
import io.tenantry.secretstore.CorruptSecretException;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretConflictException;
import io.tenantry.secretstore.SecretStoreException;
import io.tenantry.secretstore.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TenantSecretsTest {

  private final FakeCluster cluster = new FakeCluster();
  private final InMemorySecretStore store = new InMemorySecretStore();
  private final TenantSecrets secrets = new TenantSecrets(store, cluster);
  private final OperatorConfig config = OperatorConfig.defaults();

  private TenantContext acme() {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi"));
    tenant.setSpec(spec);
    return new TenantContext(tenant, config, config.plans().get("standard"));
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void aNewDatabaseGetsCredentialsGeneratedOnceIntoTheStore() {
    DatabaseCredentials first = secrets.resolve(acme()).credentials().get("main");
    assertThat(first.username()).isEqualTo("tenant");
    assertThat(first.password()).hasSize(32);
    Map<String, byte[]> stored = store.get(Scope.tenant("acme"), "db-main-credentials").orElseThrow().data();
    assertThat(text(stored.get("password"))).isEqualTo(first.password());

    DatabaseCredentials again = secrets.resolve(acme()).credentials().get("main");
    assertThat(again.password()).as("read back, not generated again").isEqualTo(first.password());
    assertThat(again.version()).isEqualTo(first.version());
  }

  @Test
  void aNamespaceHoldingItsCredentialsCostsNoStoreCall() {
    TenantContext ctx = acme();
    DatabaseCredentials credentials = secrets.resolve(ctx).credentials().get("main");
    Secret copy = DatabaseModel.credentials(ctx, ctx.tenant().getSpec().getDatabases().get(0), credentials);
    cluster.putOwned(copy);
    int calls = store.calls();

    assertThat(secrets.resolve(ctx).credentials().get("main").password()).isEqualTo(credentials.password());
    assertThat(store.calls()).isEqualTo(calls);
  }

  @Test
  void afterARestartTheCopyInTheNamespaceIsCheckedAgainstTheStoreOnceThenTrusted() {
    TenantContext ctx = acme();
    DatabaseCredentials credentials = secrets.resolve(ctx).credentials().get("main");
    cluster.putOwned(DatabaseModel.credentials(ctx, ctx.tenant().getSpec().getDatabases().get(0), credentials));
    TenantSecrets restarted = new TenantSecrets(store, cluster);
    int calls = store.calls();

    assertThat(restarted.resolve(ctx).credentials().get("main").password()).isEqualTo(credentials.password());
    assertThat(store.calls()).as("one read to verify the copy").isEqualTo(calls + 1);
    restarted.resolve(ctx);
    assertThat(store.calls()).isEqualTo(calls + 1);
  }

  @Test
  void credentialsAnotherWriterStoredFirstAreTheTenants() {
    store.put(Scope.tenant("acme"), "db-main-credentials", Map.of("username", "tenant".getBytes(StandardCharsets.UTF_8),
        "password", "stored-by-another-replica".getBytes(StandardCharsets.UTF_8)));
    assertThat(secrets.resolve(acme()).credentials().get("main").password()).isEqualTo("stored-by-another-replica");
  }

  @Test
  void anUnavailableStoreFailsTheResolutionAndGeneratesNothing() {
    store.setUnavailable(true);
    assertThatThrownBy(() -> secrets.resolve(acme())).isInstanceOf(StoreUnavailableException.class);
    store.setUnavailable(false);
    assertThat(store.list(Scope.tenant("acme"))).isEmpty();
  }

  @Test
  void aPurgeDeletesEveryStoredSecretOfTheTenant() {
    secrets.resolve(acme());
    secrets.purge("acme");
    assertThat(store.list(Scope.tenant("acme"))).isEmpty();
  }

  @Test
  void everyKindOfStoreFailureHasItsOwnReason() {
    List<SecretStoreException> failures = List.of(new StoreUnavailableException("down", null),
        new KeyUnavailableException("no key", null), new CorruptSecretException("tenants/acme/x", "bad", null),
        new SecretConflictException("tenants/acme/x", "exists", null));
    Set<Class<?>> covered = failures.stream().map(Object::getClass).collect(Collectors.toSet());
    assertThat(covered).as("a new kind of store failure needs a reason")
        .containsExactlyInAnyOrderElementsOf(Arrays.asList(SecretStoreException.class.getPermittedSubclasses()));
    assertThat(failures.stream().map(TenantSecrets::reason).toList())
        .containsExactly(Reason.StoreUnavailable, Reason.KeyUnavailable, Reason.CorruptSecret, Reason.SecretConflict);
  }
}
