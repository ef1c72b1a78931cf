package io.tenantry.testsupport;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Installs a CRD from YAML (server-side apply, so reinstalling is harmless) and waits until it is served. */
public final class Crds {

  private Crds() {
  }

  /**
   * The Gateway API's standard-channel CRDs (GatewayClass, Gateway, HTTPRoute, ReferenceGrant, ...),
   * as tools/build-test-binaries.sh copied them from the pinned sigs.k8s.io/gateway-api module.
   */
  public static void installGatewayApi(KubernetesClient client) {
    TestBinaries binaries = TestBinaries.locate();
    Path dir = binaries.cacheDir().resolve("gateway-api").resolve("v" + binaries.version("GATEWAY_API_VERSION"));
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> yamls = files.filter(f -> f.getFileName().toString().endsWith(".yaml")).sorted().toList();
      if (yamls.isEmpty()) {
        throw new IllegalStateException(dir + " holds no CRDs: run tools/build-test-binaries.sh first");
      }
      for (Path yaml : yamls) {
        install(client, yaml.toUri().toURL());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Gateway API CRDs in " + dir + ": run tools/build-test-binaries.sh first", e);
    }
  }

  /**
   * Traefik's CRDs (Middleware, IngressRoute, ...), as tools/build-test-binaries.sh copied them from
   * the pinned Traefik module: what its kubernetesCRD provider watches.
   */
  public static void installTraefik(KubernetesClient client) {
    TestBinaries binaries = TestBinaries.locate();
    Path yaml = binaries.cacheDir().resolve("traefik-crds").resolve("v" + binaries.version("TRAEFIK_VERSION")).resolve("traefik-crds.yaml");
    List<HasMetadata> crds;
    try (InputStream in = Files.newInputStream(yaml)) {
      crds = client.load(in).items();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Traefik's CRDs in " + yaml + ": run tools/build-test-binaries.sh first", e);
    }
    crds.forEach(crd -> install(client, (CustomResourceDefinition) crd));
  }

  public static CustomResourceDefinition install(KubernetesClient client, URL yaml) {
    try (InputStream in = yaml.openStream()) {
      return install(client, client.apiextensions().v1().customResourceDefinitions().load(in).item());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRD " + yaml, e);
    }
  }

  private static CustomResourceDefinition install(KubernetesClient client, CustomResourceDefinition crd) {
    client.apiextensions().v1().customResourceDefinitions().resource(crd)
        .fieldManager("tenantry-tests").forceConflicts().serverSideApply();
    return client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
        .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null
            && c.getStatus().getConditions().stream()
            .anyMatch(cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())),
            60, TimeUnit.SECONDS);
  }
}
