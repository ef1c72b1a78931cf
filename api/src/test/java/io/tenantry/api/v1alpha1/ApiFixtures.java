package io.tenantry.api.v1alpha1;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.tenantry.testsupport.Crds;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared by the API's integration tests: CRD installation, unique names and sample objects. */
final class ApiFixtures {

  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private ApiFixtures() {
  }

  static void installCrds(KubernetesClient client) {
    for (String crd : List.of("tenants.tenantry.io-v1.yml", "sparepools.tenantry.io-v1.yml")) {
      Crds.install(client, ApiFixtures.class.getResource("/META-INF/fabric8/" + crd));
    }
  }

  /** A name no other test of this run uses. */
  static String uniqueName(String prefix) {
    return prefix + "-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
  }

  static NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
      generic(KubernetesClient client, String kind) {
    return client.genericKubernetesResources(Tenant.GROUP + "/" + Tenant.VERSION, kind);
  }

  /** Parses a YAML manifest, so that a test can send what the Java model cannot express. */
  static GenericKubernetesResource yaml(String manifest) {
    return Serialization.unmarshal(manifest, GenericKubernetesResource.class);
  }

  static Tenant activeTenant(String name) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.setOrganization("Acme Corp");
    spec.setEmail("ops@acme.example");
    spec.setPlan("standard");
    spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "10Gi"));
    spec.getDatabases().add(new DatabaseSpec("cache", DatabaseEngine.REDIS, "7.2", "1Gi"));
    AppSpec web = new AppSpec("web", "registry.example.com/acme/web", "1.4.2", 2, 8080);
    web.getEnv().add(new EnvVar("LOG_LEVEL", "info"));
    web.setResources(new AppResources(new ComputeResources("250m", "256Mi"), new ComputeResources("1", "512Mi")));
    web.setDatabases(new java.util.ArrayList<>(java.util.List.of("main", "cache")));
    web.getSecrets().add(new AppSecretRef("smtp", false));
    web.getSecrets().add(new AppSecretRef("stripe", true));
    web.getConfig().add(new ConfigFile("app.yaml", "features: [search]\n"));
    web.setReadinessPath("/healthz");
    web.setLivenessPath("/livez");
    web.setMigrate(new MigrationSpec(new java.util.ArrayList<>(java.util.List.of("/app/migrate")),
        new java.util.ArrayList<>(java.util.List.of("--to-latest"))));
    web.getRoutes().add(new AppRoute("/"));
    web.getRoutes().add(new AppRoute("/api"));
    spec.getApps().add(web);
    spec.getApps().add(new AppSpec("worker", "registry.example.com/acme/worker", "1.4.2", 1, 9090));
    spec.setSubdomain("acme-corp");
    spec.setHostnames(new java.util.ArrayList<>(java.util.List.of("app.acme.example", "portal.acme-corp.example")));
    tenant.setSpec(spec);
    return tenant;
  }
}
