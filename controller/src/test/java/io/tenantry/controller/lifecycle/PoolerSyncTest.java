package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.status.Conditions;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PoolerSyncTest {

  private static final String NS = "tenant-acme";

  @Test
  void addingAPoolerMakesItPointsTheAppsBindingAtItAndRollsTheAppOnce() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    String hash = restartHash(f);
    f.edit("acme", t -> t.getSpec().getDatabases().get(0).setPooler(new PoolerSpec()));

    f.sync("acme");
    assertThat(f.writes.take()).contains("create Secret tenant-acme/db-main-pooler-config", "create Service tenant-acme/db-main-pooler",
        "create Deployment tenant-acme/db-main-pooler", "create Secret tenant-acme/db-main-direct-binding",
        "apply Secret tenant-acme/db-main-binding", "apply Deployment tenant-acme/app-web");
    assertThat(f.cluster.get(Deployment.class, NS, "db-main-pooler").getSpec().getReplicas()).isEqualTo(1);
    assertThat(value(f.cluster.get(Secret.class, NS, "db-main-binding"), "host")).isEqualTo("db-main-pooler.tenant-acme.svc.cluster.local");
    assertThat(value(f.cluster.get(Secret.class, NS, "db-main-direct-binding"), "host")).isEqualTo("db-main.tenant-acme.svc.cluster.local");
    String pooled = restartHash(f);
    assertThat(pooled).isNotEqualTo(hash);

    f.cluster.rollOut("acme");
    f.sync("acme");
    f.writes.take();
    f.sync("acme");
    assertThat(f.writes.take()).as("converged: nothing more to write").isEmpty();
    assertThat(restartHash(f)).isEqualTo(pooled);
  }

  @Test
  void aPoolerOverItsBudgetIsRefusedWithAConditionAndNothingOfItIsWritten() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.edit("acme", t -> t.getSpec().getDatabases().get(0).setPooler(new PoolerSpec(PoolerMode.TRANSACTION, 41, 100, 1)));

    f.sync("acme");
    assertThat(f.writes.take()).allMatch(w -> w.startsWith("status ") || w.startsWith("event "), "only status and events");
    assertThat(f.cluster.get(Deployment.class, NS, "db-main-pooler")).isNull();
    assertThat(value(f.cluster.get(Secret.class, NS, "db-main-binding"), "host")).isEqualTo("db-main.tenant-acme.svc.cluster.local");
    Condition ready = Conditions.find(f.cluster.tenant("acme").getStatus().getConditions(), Conditions.READY).orElseThrow();
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("PoolerRefused");
    assertThat(ready.getMessage()).startsWith("spec.databases[0].pooler.defaultPoolSize: a pool of 41");
  }

  @Test
  void frozenKeepsThePoolerAtZeroPods() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.edit("acme", t -> t.getSpec().getDatabases().get(0).setPooler(new PoolerSpec(PoolerMode.TRANSACTION, 10, 100, 2)));
    f.sync("acme");
    f.cluster.rollOut("acme");
    f.sync("acme");
    f.writes.take();
    assertThat(f.cluster.get(Deployment.class, NS, "db-main-pooler").getSpec().getReplicas()).isEqualTo(2);

    f.edit("acme", t -> t.getSpec().setState(TenantState.Frozen));
    f.sync("acme");
    assertThat(f.writes.take()).contains("apply Deployment tenant-acme/db-main-pooler", "delete PodDisruptionBudget tenant-acme/db-main-pooler");
    assertThat(f.cluster.get(Deployment.class, NS, "db-main-pooler").getSpec().getReplicas()).isZero();
  }

  private static String restartHash(SyncFixture f) {
    return f.cluster.get(Deployment.class, NS, "app-web").getSpec().getTemplate().getMetadata().getAnnotations().get(AppPod.RESTART_HASH);
  }

  private static String value(Secret secret, String key) {
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }
}
