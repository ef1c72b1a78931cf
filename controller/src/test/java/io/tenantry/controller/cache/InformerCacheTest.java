package io.tenantry.controller.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.resources.Labels;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The informers against fabric8's in-memory API server: what is cached, what is indexed, what enqueues whom. */
@EnableKubernetesMockClient(crud = true)
class InformerCacheTest {

  /** One in-memory API server and one cache for the class: the tests change different objects. */
  static KubernetesClient client;

  private static final Queue<String> tenantKeys = new ConcurrentLinkedQueue<>();
  private static final Queue<String> poolKeys = new ConcurrentLinkedQueue<>();
  private static InformerCache cache;

  private static Tenant tenant(String name, String pool) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    if (pool != null) {
      tenant.getMetadata().getLabels().put(WellKnown.SPARE_POOL, pool);
    }
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.New);
    tenant.setSpec(spec);
    return tenant;
  }

  private static Deployment deployment(String namespace, String tenant, String image) {
    DeploymentBuilder builder = new DeploymentBuilder().withNewMetadata().withName("app-web").withNamespace(namespace).endMetadata()
        .withNewSpec().withNewTemplate().withNewSpec().addNewContainer().withName("web").withImage(image).endContainer()
        .endSpec().endTemplate().endSpec();
    if (tenant != null) {
      builder.editMetadata().addToLabels(Labels.MANAGED_BY, Labels.MANAGER).addToLabels(Labels.TENANT, tenant).endMetadata();
    }
    return builder.build();
  }

  @BeforeAll
  static void start() throws Exception {
    client.resources(Tenant.class).resource(tenant("acme", null)).create();
    client.resources(Tenant.class).resource(tenant("default-x1", "default")).create();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tenant-acme")
        .addToLabels(Labels.MANAGED_BY, Labels.MANAGER).addToLabels(Labels.TENANT, "acme").endMetadata().build()).create();
    client.apps().deployments().resource(deployment("tenant-acme", "acme", "web:1")).create();
    client.apps().deployments().resource(deployment("elsewhere", null, "web:1")).create(); // Not the operator's.
    // Claims to be acme's, but lies in another namespace: never counted as acme's.
    client.apps().deployments().resource(deployment("tenant-globex", "acme", "evil:1")).create();
    client.serviceAccounts().resource(new ServiceAccountBuilder().withNewMetadata().withName("x").withNamespace("tenant-acme")
        .addToLabels(Labels.MANAGED_BY, Labels.MANAGER).addToLabels(Labels.TENANT, "acme").endMetadata().build()).create();
    cache = new InformerCache(client, "tenant-", "tenantry-templates", "tenantry-edge", Duration.ZERO, tenantKeys::add, tenantKeys::add,
        poolKeys::add, List.of());
    cache.start(Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    cache.close();
  }

  @Test
  void holdsTenantsPoolsSparesAndEveryOwnedObjectByTenant() {
    assertThat(cache.hasSynced()).isTrue();
    assertThat(cache.tenantNames()).containsExactlyInAnyOrder("acme", "default-x1");
    assertThat(cache.spares("default")).extracting(t -> t.getMetadata().getName()).containsExactly("default-x1");
    assertThat(cache.ownedBy("acme")).extracting(o -> o.getKind() + " " + o.getMetadata().getName())
        .as("owned kinds only, by the tenant label").containsExactlyInAnyOrder("Namespace tenant-acme", "Deployment app-web");
    assertThat(cache.get(Namespace.class, null, "tenant-acme")).isNotNull();
    assertThat(cache.get(Deployment.class, "elsewhere", "app-web")).as("unlabelled: not cached").isNull();
    assertThat(cache.pool("default")).isNull();
  }

  @Test
  void aChangedOwnedObjectEnqueuesItsTenantAndChangesItsFingerprint() {
    long before = cache.fingerprint("acme");
    long other = cache.fingerprint("default-x1");
    tenantKeys.clear();
    client.apps().deployments().resource(deployment("tenant-acme", "acme", "web:2")).update();

    await().atMost(Duration.ofSeconds(10)).until(() -> tenantKeys.contains("acme"));
    await().atMost(Duration.ofSeconds(10)).until(() -> cache.fingerprint("acme") != before);
    assertThat(tenantKeys).doesNotContain("default-x1");
    assertThat(cache.fingerprint("default-x1")).isEqualTo(other);
  }

  @Test
  void aTemplateSecretConcernsEveryTenantAndASpareChangeItsPool() {
    tenantKeys.clear();
    Secret template = new SecretBuilder().withNewMetadata().withName("smtp").withNamespace("tenantry-templates")
        .addToLabels(Labels.MANAGED_BY, Labels.MANAGER).addToLabels(WellKnown.TEMPLATE, "true").endMetadata().build();
    client.secrets().resource(template).create();

    await().atMost(Duration.ofSeconds(10)).until(() -> tenantKeys.containsAll(List.of("acme", "default-x1")));
    assertThat(cache.templateSecrets()).extracting(s -> s.getMetadata().getName()).containsExactly("smtp");

    // The same labels on a Secret in a tenant's own namespace make no template.
    Secret planted = new SecretBuilder(template).editMetadata().withName("planted").withNamespace("tenant-acme").endMetadata().build();
    client.secrets().resource(planted).create();
    await().atMost(Duration.ofSeconds(10)).until(() -> cache.get(Secret.class, "tenant-acme", "planted") != null);
    assertThat(cache.templateSecrets()).extracting(s -> s.getMetadata().getName()).containsExactly("smtp");

    poolKeys.clear();
    Tenant spare = client.resources(Tenant.class).withName("default-x1").get();
    spare.getSpec().setState(TenantState.Active);
    client.resources(Tenant.class).resource(spare).update();
    await().atMost(Duration.ofSeconds(10)).until(() -> poolKeys.contains("default"));
  }
}
