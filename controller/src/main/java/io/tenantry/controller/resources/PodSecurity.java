package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.List;

/**
 * Security contexts that satisfy the Pod Security "restricted" standard the tenant namespaces
 * enforce, with a read-only root filesystem: what a container must write goes to a size-limited
 * emptyDir ("scratch"), so one tenant cannot fill a node's disk through its containers.
 */
public final class PodSecurity {

  /** The size limit of every scratch emptyDir: the kubelet evicts a pod that writes more. */
  static final String SCRATCH_SIZE_LIMIT = "256Mi";

  private PodSecurity() {
  }

  /** Pod-level context; {@code user} (may be null) also owns the volumes. */
  public static PodSecurityContext pod(Long user) {
    PodSecurityContextBuilder builder = new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile();
    if (user != null) {
      builder.withRunAsUser(user).withRunAsGroup(user).withFsGroup(user);
    }
    return builder.build();
  }

  /** @param readOnlyRoot whether the root filesystem is read-only (always, except for an app that asks otherwise) */
  public static SecurityContext container(boolean readOnlyRoot) {
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(readOnlyRoot)
        .withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
        .withNewCapabilities().withDrop("ALL").endCapabilities()
        .build();
  }

  /** One size-limited emptyDir per directory a container writes to. */
  static List<Volume> scratchVolumes(List<String> dirs) {
    return dirs.stream().map(dir -> new VolumeBuilder().withName(scratchName(dir))
        .withNewEmptyDir().withSizeLimit(new Quantity(SCRATCH_SIZE_LIMIT)).endEmptyDir().build()).toList();
  }

  static List<VolumeMount> scratchMounts(List<String> dirs) {
    return dirs.stream().map(dir -> new VolumeMountBuilder().withName(scratchName(dir)).withMountPath(dir).build()).toList();
  }

  /** {@code /var/run/postgresql} → {@code scratch-var-run-postgresql}. */
  private static String scratchName(String dir) {
    return "scratch" + dir.replace('/', '-').replace('.', '-').replace('_', '-');
  }
}
