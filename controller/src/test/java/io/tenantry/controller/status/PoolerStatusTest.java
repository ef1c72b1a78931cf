package io.tenantry.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.resources.Workloads;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolerStatusTest {

  private static final Namespace NS = new NamespaceBuilder().withNewMetadata().withName("tenant-acme").endMetadata().build();
  private static final SecretsStatus SECRETS = new SecretsStatus(true, Reason.Synced, "in place", "v1");

  @Test
  void aPooledDatabaseIsReadyOnlyOnceItsPoolerIsRolledOutToo() {
    Tenant tenant = tenant();
    TenantStatus waiting = StatusBuilder.provisioned(tenant, "tenant-acme",
        new StatusBuilder.Observed(NS, Map.of(), Map.of("main", database()), Map.of("main", pooler(2, 1)), Map.of()), Workloads.RUNNING,
        SECRETS, "2026-01-01T00:00:00Z");
    assertThat(waiting.getPhase()).isEqualTo(TenantPhase.Provisioning);
    assertThat(Conditions.find(waiting.getConditions(), Conditions.READY).orElseThrow().getMessage()).contains("databases main");

    TenantStatus ready = StatusBuilder.provisioned(tenant, "tenant-acme",
        new StatusBuilder.Observed(NS, Map.of(), Map.of("main", database()), Map.of("main", pooler(2, 2)), Map.of()), Workloads.RUNNING,
        SECRETS, "2026-01-01T00:00:00Z");
    assertThat(ready.getPhase()).isEqualTo(TenantPhase.Ready);
  }

  @Test
  void anArchivedTenantIsArchivingWhileItsPoolerIsStillThere() {
    Tenant tenant = tenant();
    tenant.getSpec().setState(TenantState.Archived);
    TenantStatus status = StatusBuilder.provisioned(tenant, "tenant-acme",
        new StatusBuilder.Observed(NS, Map.of(), Map.of(), Map.of("main", pooler(0, 0)), Map.of()), Workloads.REMOVED, SECRETS,
        "2026-01-01T00:00:00Z");
    assertThat(status.getPhase()).isEqualTo(TenantPhase.Progressing);
    TenantStatus archived = StatusBuilder.provisioned(tenant, "tenant-acme",
        new StatusBuilder.Observed(NS, Map.of(), Map.of(), Map.of(), Map.of()), Workloads.REMOVED, SECRETS, "2026-01-01T00:00:00Z");
    assertThat(archived.getPhase()).isEqualTo(TenantPhase.Archived);
  }

  private static Tenant tenant() {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    tenant.getMetadata().setGeneration(1L);
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    DatabaseSpec main = new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi");
    main.setPooler(new PoolerSpec());
    spec.getDatabases().add(main);
    tenant.setSpec(spec);
    return tenant;
  }

  private static StatefulSet database() {
    return new StatefulSetBuilder().withNewMetadata().withName("db-main").withGeneration(1L).endMetadata()
        .withNewSpec().withReplicas(1).endSpec()
        .withNewStatus().withObservedGeneration(1L).withReplicas(1).withReadyReplicas(1).withUpdatedReplicas(1).endStatus()
        .build();
  }

  private static Deployment pooler(int replicas, int available) {
    return new DeploymentBuilder().withNewMetadata().withName("db-main-pooler").withGeneration(1L).endMetadata()
        .withNewSpec().withReplicas(replicas).endSpec()
        .withNewStatus().withObservedGeneration(1L).withReplicas(replicas).withUpdatedReplicas(replicas)
        .withAvailableReplicas(available).endStatus()
        .build();
  }
}
