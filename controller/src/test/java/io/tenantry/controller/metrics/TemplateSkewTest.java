package io.tenantry.controller.metrics;

import static io.tenantry.controller.metrics.Fleet.copy;
import static io.tenantry.controller.metrics.Fleet.namespace;
import static io.tenantry.controller.metrics.Fleet.template;
import static io.tenantry.controller.metrics.Fleet.tenant;
import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.fakes.FakeCluster;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tenants the skew gauge counts as behind the template namespace. */
class TemplateSkewTest {

  private final FakeCluster cluster = new FakeCluster();

  private Tenant withNamespace(String name, TenantState state) {
    cluster.putOwned(namespace(name));
    return cluster.putTenant(tenant(name, state, TenantPhase.Ready, "standard"));
  }

  private long behind() {
    List<Tenant> tenants = cluster.tenantNames().stream().map(cluster::tenant).toList();
    return TemplateSkew.tenantsBehind(cluster, tenants, "tenant-");
  }

  @Test
  void aTenantIsBehindWhenACopyIsMissingOrAtAnotherVersion() {
    cluster.addTemplate(template("smtp", "3"));
    cluster.addTemplate(template("stripe", "1"));
    withNamespace("acme", TenantState.Active);
    cluster.putOwned(copy("acme", "smtp", "3"));
    cluster.putOwned(copy("acme", "stripe", "1"));
    withNamespace("globex", TenantState.Frozen);
    cluster.putOwned(copy("globex", "smtp", "2")); // the previous version
    cluster.putOwned(copy("globex", "stripe", "1"));
    withNamespace("initech", TenantState.Archived);
    cluster.putOwned(copy("initech", "smtp", "3")); // stripe not copied yet

    assertThat(behind()).isEqualTo(2);

    cluster.putOwned(copy("globex", "smtp", "3"));
    cluster.putOwned(copy("initech", "stripe", "1"));
    assertThat(behind()).isZero();
  }

  @Test
  void tenantsWithoutANamespaceYetAndPurgedTenantsAreNotCompared() {
    cluster.addTemplate(template("smtp", "3"));
    cluster.putTenant(tenant("new-one", TenantState.Active, TenantPhase.Provisioning, "standard"));
    withNamespace("gone", TenantState.Purged);
    cluster.putOwned(copy("gone", "smtp", "1"));

    assertThat(behind()).isZero();
  }

  @Test
  void withoutTemplatesNoTenantIsBehind() {
    withNamespace("acme", TenantState.Active);

    assertThat(behind()).isZero();
  }
}
