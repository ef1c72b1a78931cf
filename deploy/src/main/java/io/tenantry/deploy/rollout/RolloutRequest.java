package io.tenantry.deploy.rollout;

import io.tenantry.api.v1alpha1.Patterns;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@code tenantctl deploy} asks for, validated on construction (each refusal names its flag).
 *
 * @param clusters the clusters to roll across, in this order; empty for every registered cluster, by name
 * @param waveSize tenants per wave; a wave never spans two clusters
 * @param failureLimits when no new wave starts: after too many failed tenants, in all or as a share of a wave
 * @param tenantTimeout how long a tenant of a wave may take to report the new version Ready
 */
public record RolloutRequest(String app, String version, Selection selection, List<String> clusters, int waveSize,
    FailureLimits failureLimits, Duration tenantTimeout) {

  public static final int MAX_WAVE_SIZE = 1000;
  private static final Pattern APP = Pattern.compile(Patterns.DNS_LABEL);
  private static final Pattern VERSION = Pattern.compile(Patterns.IMAGE_TAG);

  public RolloutRequest {
    if (app == null || app.length() > 30 || !APP.matcher(app).matches()) {
      throw new RolloutInputException("--app", "must be an app name (a DNS label of at most 30 characters): " + app);
    }
    if (version == null || !VERSION.matcher(version).matches()) {
      throw new RolloutInputException("--version", "must be an image tag (letters, digits, '_', '.', '-', at most"
          + " 128 characters, not starting with '.' or '-'): " + version);
    }
    if (selection == null) {
      throw new RolloutInputException("--tenants", "one of --tenants, --selector or --all is required");
    }
    if (selection.kind() == Selection.Kind.NAMES) {
      if (selection.names().isEmpty()) {
        throw new RolloutInputException("--tenants", "must name at least one tenant");
      }
      requireDistinctLabels("--tenants", selection.names());
    }
    if (selection.kind() == Selection.Kind.SELECTOR && (selection.selector() == null || selection.selector().isBlank())) {
      throw new RolloutInputException("--selector", "must not be empty");
    }
    clusters = List.copyOf(clusters);
    requireDistinctLabels("--clusters", clusters);
    if (waveSize < 1 || waveSize > MAX_WAVE_SIZE) {
      throw new RolloutInputException("--wave-size", "must be between 1 and " + MAX_WAVE_SIZE + ", got " + waveSize);
    }
    if (failureLimits == null) {
      throw new RolloutInputException("--max-failures", "a rollout needs --max-failures or --max-failure-ratio");
    }
    if (tenantTimeout == null || tenantTimeout.isNegative() || tenantTimeout.isZero()) {
      throw new RolloutInputException("--tenant-timeout", "must be a positive duration, got " + tenantTimeout);
    }
  }

  private static void requireDistinctLabels(String flag, List<String> values) {
    Set<String> seen = new HashSet<>();
    for (String value : values) {
      if (value == null || value.length() > 63 || !APP.matcher(value).matches()) {
        throw new RolloutInputException(flag, "not a DNS label: \"" + value + "\"");
      }
      if (!seen.add(value)) {
        throw new RolloutInputException(flag, value + " is given twice");
      }
    }
  }
}
