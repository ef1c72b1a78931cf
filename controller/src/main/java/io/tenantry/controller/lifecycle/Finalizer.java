package io.tenantry.controller.lifecycle;

import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import java.util.ArrayList;
import java.util.List;

/**
 * The Tenant finalizer guarding external cleanup: a Tenant is not gone until the operator has
 * purged what it owns outside the cluster. Pure: the finalizer lists to write; other
 * controllers' finalizers are kept.
 */
final class Finalizer {

  static final String NAME = WellKnown.CLEANUP_FINALIZER;

  private Finalizer() {
  }

  static boolean has(Tenant tenant) {
    return current(tenant).contains(NAME);
  }

  static List<String> added(Tenant tenant) {
    List<String> finalizers = new ArrayList<>(current(tenant));
    finalizers.add(NAME);
    return finalizers;
  }

  static List<String> removed(Tenant tenant) {
    List<String> finalizers = new ArrayList<>(current(tenant));
    finalizers.remove(NAME);
    return finalizers;
  }

  private static List<String> current(Tenant tenant) {
    List<String> finalizers = tenant.getMetadata().getFinalizers();
    return finalizers == null ? List.of() : finalizers;
  }
}
