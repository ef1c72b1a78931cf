package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/** Security contexts that satisfy the Pod Security "restricted" standard the tenant namespaces enforce. */
final class PodSecurity {

  private PodSecurity() {
  }

  /** Pod-level context; {@code user} (may be null) also owns the volumes. */
  static PodSecurityContext pod(Long user) {
    PodSecurityContextBuilder builder = new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile();
    if (user != null) {
      builder.withRunAsUser(user).withRunAsGroup(user).withFsGroup(user);
    }
    return builder.build();
  }

  static SecurityContext container() {
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withNewCapabilities().withDrop("ALL").endCapabilities()
        .build();
  }
}
