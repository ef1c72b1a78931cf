package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Identifies an object: kind, namespace (null when cluster-scoped) and name. */
public record ObjectKey(String kind, String namespace, String name) {

  public static ObjectKey of(HasMetadata object) {
    return new ObjectKey(object.getKind(), object.getMetadata().getNamespace(), object.getMetadata().getName());
  }

  @Override
  public String toString() {
    return kind + " " + (namespace == null ? "" : namespace + "/") + name;
  }
}
