package io.tenantry.testsupport;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.concurrent.TimeUnit;

/** Installs a CRD from YAML (server-side apply, so reinstalling is harmless) and waits until it is served. */
public final class Crds {

  private Crds() {
  }

  public static CustomResourceDefinition install(KubernetesClient client, URL yaml) {
    CustomResourceDefinition crd;
    try (InputStream in = yaml.openStream()) {
      crd = client.apiextensions().v1().customResourceDefinitions().load(in).item();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRD " + yaml, e);
    }
    client.apiextensions().v1().customResourceDefinitions().resource(crd)
        .fieldManager("tenantry-tests").forceConflicts().serverSideApply();
    return client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
        .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null
            && c.getStatus().getConditions().stream()
            .anyMatch(cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())),
            60, TimeUnit.SECONDS);
  }
}
