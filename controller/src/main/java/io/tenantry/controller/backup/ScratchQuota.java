package io.tenantry.controller.backup;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a drill's scratch space fits what the tenant's quota has left of ephemeral storage. The
 * drill's pod requests (and is limited to) its scratch space, so a quota that counts ephemeral
 * storage counts the drill; checked before the Job is made, a drill that cannot fit is reported
 * with the figures rather than left as a Job whose pod the quota refuses. A quota that counts no
 * ephemeral storage bounds nothing here.
 */
final class ScratchQuota {

  private static final List<String> COUNTED = List.of("requests.ephemeral-storage", "limits.ephemeral-storage");

  private ScratchQuota() {
  }

  /** Why {@code bytes} of scratch space do not fit {@code quota} (by the API server's last count), or empty if they do. */
  static Optional<String> shortfall(ResourceQuota quota, long bytes) {
    if (quota == null || quota.getSpec() == null || quota.getSpec().getHard() == null) {
      return Optional.empty();
    }
    Map<String, Quantity> used = quota.getStatus() == null || quota.getStatus().getUsed() == null ? Map.of()
        : quota.getStatus().getUsed();
    for (String resource : COUNTED) {
      Quantity hard = quota.getSpec().getHard().get(resource);
      if (hard == null) {
        continue;
      }
      BigDecimal left = hard.getNumericalAmount().subtract(
          used.containsKey(resource) ? used.get(resource).getNumericalAmount() : BigDecimal.ZERO);
      if (left.compareTo(BigDecimal.valueOf(bytes)) < 0) {
        return Optional.of("the drill needs " + mebibytes(BigDecimal.valueOf(bytes)) + " of scratch space; the quota's "
            + resource + " has " + mebibytes(left.max(BigDecimal.ZERO)) + " left of " + hard
            + " (raise it in the plan, or set drillEvery: 0)");
      }
    }
    return Optional.empty();
  }

  private static String mebibytes(BigDecimal bytes) {
    return bytes.divide(BigDecimal.valueOf(1 << 20), 0, java.math.RoundingMode.CEILING) + "Mi";
  }
}
