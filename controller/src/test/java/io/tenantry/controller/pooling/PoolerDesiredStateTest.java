package io.tenantry.controller.pooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.config.PoolerPolicy;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.DesiredState;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolerDesiredStateTest {

  private static final Map<String, DatabaseCredentials> CREDENTIALS = Map.of(
      "main", PoolerModelTest.CREDENTIALS,
      "cache", new DatabaseCredentials("default", "cache-pw", "1", "c1"),
      "audit", new DatabaseCredentials("tenant", "audit-pw", "1", "a1"));

  @Test
  void aPooledDatabaseAddsItsPoolerItsAppsBindingReachesItAndMigrationsGetADirectOne() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec());
    List<HasMetadata> desired = DesiredState.of(ctx, CREDENTIALS, List.of(), Workloads.RUNNING, Map.of(), Map.of());
    List<HasMetadata> pooled = Pooling.over(desired, objects(ctx, Workloads.RUNNING));
    assertThat(pooled).hasSize(desired.size() + 4);
    assertThat(names(pooled)).contains("Secret/db-main-pooler-config", "Service/db-main-pooler", "Deployment/db-main-pooler",
        "Secret/db-main-direct-binding");
    assertThat(host(pooled, "db-main-binding")).isEqualTo("db-main-pooler.tenant-acme.svc.cluster.local");
    assertThat(host(pooled, "db-main-direct-binding")).as("the migrations'").isEqualTo("db-main.tenant-acme.svc.cluster.local");
    assertThat(host(pooled, "db-cache-binding")).isEqualTo(host(desired, "db-cache-binding"));
    assertThat(names(pooled).indexOf("Secret/db-main-binding")).as("in place").isEqualTo(names(desired).indexOf("Secret/db-main-binding"));
  }

  @Test
  void withoutAPoolerNothingChanges() {
    TenantContext ctx = PoolerModelTest.context(null);
    List<HasMetadata> desired = DesiredState.of(ctx, CREDENTIALS, List.of(), Workloads.RUNNING, Map.of(), Map.of());
    assertThat(Pooling.over(desired, objects(ctx, Workloads.RUNNING))).isEqualTo(desired);
  }

  @Test
  void archivedRemovesThePoolerAndGivesTheBindingBackToTheDatabase() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec());
    List<HasMetadata> desired = DesiredState.of(ctx, CREDENTIALS, List.of(), Workloads.REMOVED, Map.of(), Map.of());
    List<HasMetadata> pooled = Pooling.over(desired, objects(ctx, Workloads.REMOVED));
    assertThat(pooled).isEqualTo(desired);
    assertThat(host(pooled, "db-main-binding")).isEqualTo("db-main.tenant-acme.svc.cluster.local");
  }

  @Test
  void aPoolerOverItsBudgetRefusesEveryPoolerNamingTheField() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec(PoolerMode.TRANSACTION, 41, 100, 1));
    assertThat(Pooling.desired(ctx, CREDENTIALS, Workloads.RUNNING)).isInstanceOfSatisfying(Pooling.Refused.class, refused -> {
      assertThat(refused.field()).isEqualTo("spec.databases[0].pooler.defaultPoolSize");
      assertThat(refused.message()).contains("pool of 41", "40 server connections");
    });
  }

  @Test
  void aPlanThatSetsItsServersMaxConnectionsPassesItToPostgresOnlyAndChecksThePoolsAgainstIt() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec(PoolerMode.TRANSACTION, 100, 200, 1));
    Plan roomy = ctx.plan().withPooler(new PoolerPolicy(150, 200));
    TenantContext roomyCtx = new TenantContext(ctx.tenant(), ctx.config(), roomy);
    assertThat(Pooling.desired(ctx, CREDENTIALS, Workloads.RUNNING)).as("100 in the default plan").isInstanceOf(Pooling.Refused.class);
    assertThat(Pooling.desired(roomyCtx, CREDENTIALS, Workloads.RUNNING)).isInstanceOf(Pooling.Desired.class);

    List<HasMetadata> desired = DesiredState.of(roomyCtx, CREDENTIALS, List.of(), Workloads.RUNNING, Map.of(), Map.of());
    assertThat(desired).filteredOn(o -> o instanceof StatefulSet).extracting(o -> ((StatefulSet) o).getMetadata().getName()
        + " " + ((StatefulSet) o).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("db-main [-c, max_connections=200]", "db-audit []");
    assertThat(DesiredState.of(ctx, CREDENTIALS, List.of(), Workloads.RUNNING, Map.of(), Map.of()))
        .filteredOn(o -> o instanceof StatefulSet && "db-main".equals(o.getMetadata().getName()))
        .allSatisfy(o -> assertThat(((StatefulSet) o).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
            .as("unset: PostgreSQL's default, no restart").isEmpty());
  }

  @Test
  void anArchivedTenantsPoolerIsNotCheckedAgainstABudgetAsNoneIsMade() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec(PoolerMode.TRANSACTION, 41, 100, 1));
    assertThat(Pooling.desired(ctx, CREDENTIALS, Workloads.REMOVED)).isEqualTo(new Pooling.Desired(List.of()));
    assertThat(Pooling.desired(ctx, CREDENTIALS, Workloads.SCALED_TO_ZERO)).isInstanceOf(Pooling.Refused.class);
  }

  @Test
  void aPoolerOnAnotherEngineIsRefused() {
    TenantContext ctx = PoolerModelTest.context(null);
    ctx.tenant().getSpec().getDatabases().get(1).setPooler(new PoolerSpec());
    assertThat(Pooling.desired(ctx, CREDENTIALS, Workloads.RUNNING))
        .isEqualTo(new Pooling.Refused("spec.databases[1].pooler", "only a postgres database can have a pooler"));
  }

  private static List<HasMetadata> objects(TenantContext ctx, Workloads workloads) {
    return ((Pooling.Desired) Pooling.desired(ctx, CREDENTIALS, workloads)).objects();
  }

  private static List<String> names(List<HasMetadata> objects) {
    return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }

  private static String host(List<HasMetadata> objects, String secret) {
    return objects.stream().filter(o -> o instanceof Secret && o.getMetadata().getName().equals(secret))
        .map(o -> PoolerModelTest.decoded((Secret) o, "host")).findFirst().orElseThrow();
  }
}
