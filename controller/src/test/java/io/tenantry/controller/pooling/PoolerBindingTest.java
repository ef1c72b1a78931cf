package io.tenantry.controller.pooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.TenantContext;
import org.junit.jupiter.api.Test;

class PoolerBindingTest {

  @Test
  void inTransactionModeTheAppsBindingKeepsItsNameButReachesThePoolerWithoutServerSidePreparedStatements() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec());
    Secret direct = DatabaseModel.bindingSecret(ctx, PoolerModelTest.main(ctx), PoolerModelTest.CREDENTIALS);
    Secret pooled = PoolerBinding.secret(ctx, PoolerModelTest.main(ctx), PoolerModelTest.CREDENTIALS);
    assertThat(pooled.getMetadata().getName()).isEqualTo("db-main-binding").isEqualTo(direct.getMetadata().getName());
    assertThat(pooled.getType()).isEqualTo("servicebinding.io/postgresql");
    assertThat(value(pooled, "host")).isEqualTo("db-main-pooler.tenant-acme.svc.cluster.local");
    assertThat(value(direct, "host")).isEqualTo("db-main.tenant-acme.svc.cluster.local");
    assertThat(value(pooled, "port")).isEqualTo("5432");
    assertThat(value(pooled, "uri")).isEqualTo("postgresql://tenant:s3cret-pw@db-main-pooler.tenant-acme.svc.cluster.local:5432/tenant");
    assertThat(value(pooled, "jdbc-url"))
        .isEqualTo("jdbc:postgresql://db-main-pooler.tenant-acme.svc.cluster.local:5432/tenant?prepareThreshold=0");
    for (String same : new String[] {"type", "provider", "username", "password", "database"}) {
      assertThat(value(pooled, same)).as(same).isEqualTo(value(direct, same));
    }
    assertThat(direct.getData()).doesNotContainKey("jdbc-url");
  }

  @Test
  void inSessionModeThePooledBindingNeedsNoDriverSettings() {
    TenantContext ctx = PoolerModelTest.context(new PoolerSpec(PoolerMode.SESSION, 10, 100, 1));
    Secret pooled = PoolerBinding.secret(ctx, PoolerModelTest.main(ctx), PoolerModelTest.CREDENTIALS);
    assertThat(value(pooled, "host")).isEqualTo("db-main-pooler.tenant-acme.svc.cluster.local");
    assertThat(pooled.getData()).doesNotContainKey("jdbc-url");
  }

  private static String value(Secret secret, String key) {
    return PoolerModelTest.decoded(secret, key);
  }
}
