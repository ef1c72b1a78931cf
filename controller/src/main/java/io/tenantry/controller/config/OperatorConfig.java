package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The operator's configuration: one typed YAML file ({@code --config}), every field optional with
 * the default shown here. This class is the one place the settings are documented.
 */
public class OperatorConfig {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  @JsonPropertyDescription("Prefix of tenant namespace names: <prefix><tenant name>.")
  public String namespacePrefix = "tenant-";
  @JsonPropertyDescription("Namespace of the edge (ingress) that may reach tenant apps.")
  public String edgeNamespace = "tenantry-edge";
  @JsonPropertyDescription("Reserved namespace holding the template secrets.")
  public String templateNamespace = "tenantry-templates";
  @JsonPropertyDescription("Namespace of the operator's leader-election Lease.")
  public String operatorNamespace = "tenantry-system";
  @JsonPropertyDescription("Worker threads syncing tenants.")
  public int workers = 4;
  @JsonPropertyDescription("Seconds between full resyncs of the informer caches (each tenant re-queued).")
  public int resyncPeriodSeconds = 600;
  @JsonPropertyDescription("Port of /healthz, /readyz, /metrics and the allocation API.")
  public int httpPort = 8080;
  @JsonPropertyDescription("Threads answering HTTP requests; an allocation holds one while it waits on Datastore and Kubernetes.")
  public int httpThreads = 32;
  @JsonPropertyDescription("Tenants that may have unfinished rollouts at once.")
  public int maxConcurrentRollouts = 10;
  @JsonPropertyDescription("Seconds a tenant may take to roll out its workload changes before it is marked Degraded and its slot freed.")
  public int rolloutDeadlineSeconds = 600;
  @JsonPropertyDescription("Leave app Deployments' replicas to another controller (an HPA) once created.")
  public boolean appReplicasManagedExternally = false;
  @JsonPropertyDescription("Retry backoff of failing syncs.")
  public RateLimits rateLimits = new RateLimits();
  @JsonPropertyDescription("Leader election among replicas.")
  public LeaderElection leaderElection = new LeaderElection();
  @JsonPropertyDescription("Images of the database engines.")
  public DatabaseImages databaseImages = new DatabaseImages();
  @JsonPropertyDescription("The encrypted secret store.")
  public SecretStore secretStore = new SecretStore();
  @JsonPropertyDescription("The fleet records.")
  public Fleet fleet = new Fleet();
  @JsonPropertyDescription("The signup allocation API.")
  public Allocation allocation = new Allocation();
  @JsonPropertyDescription("Plans by name; spec.plan selects one.")
  public Map<String, Plan> plans = new LinkedHashMap<>(Map.of("standard", Plan.standard()));

  /** Per-tenant retry backoff: exponential per tenant, combined (max-of) with a global token bucket. */
  public static class RateLimits {
    @JsonPropertyDescription("First retry delay of a failing tenant, in milliseconds; doubles with each further failure.")
    public long baseDelayMillis = 5;
    @JsonPropertyDescription("Longest retry delay of a failing tenant, in seconds.")
    public long maxDelaySeconds = 1000;
    @JsonPropertyDescription("Retries per second across all tenants (the token bucket's rate).")
    public double qps = 10;
    @JsonPropertyDescription("Retries the token bucket lets through at once.")
    public int burst = 100;
  }

  /** Leader election on a coordination.k8s.io Lease. */
  public static class LeaderElection {
    @JsonPropertyDescription("Run informers and workers only while holding the Lease; off: this process always leads (one replica only).")
    public boolean enabled = true;
    @JsonPropertyDescription("Name of the Lease, in operatorNamespace.")
    public String leaseName = "tenantry-operator";
    @JsonPropertyDescription("Seconds a standby waits after the last renewal before it takes the lease.")
    public int leaseDurationSeconds = 15;
    @JsonPropertyDescription("Seconds the leader keeps trying to renew before it gives up and exits; shorter than leaseDurationSeconds.")
    public int renewDeadlineSeconds = 10;
    @JsonPropertyDescription("Seconds between two attempts to take or renew the lease.")
    public int retryPeriodSeconds = 2;
  }

  /** Where the encrypted secrets live, and how often the template namespace is refreshed from there. */
  public static class SecretStore {
    @JsonPropertyDescription("file:<directory> (the embedded default, with a local Tink keyset) or gs://<bucket> (with a Cloud KMS key).")
    public String location = "file:" + System.getProperty("user.home") + "/.local/share/tenantry/secret-store";
    @JsonPropertyDescription("For file: stores, the Tink keyset file; created on first use. Default: <directory>/keyset.json.")
    public String keysetFile;
    @JsonPropertyDescription("For gs:// stores, the Cloud KMS key: projects/P/locations/L/keyRings/R/cryptoKeys/K.")
    public String kmsKeyName;
    @JsonPropertyDescription("Seconds between two refreshes of the template namespace from the store.")
    public int templateSyncSeconds = 60;
  }

  /** The fleet records in Cloud Datastore (clusters, placements, allocations); off without a project. */
  public static class Fleet {
    @JsonPropertyDescription("Google Cloud project of the Datastore holding the fleet records; empty: no fleet records.")
    public String datastoreProjectId;
    @JsonPropertyDescription("Datastore namespace of the fleet records.")
    public String datastoreNamespace = "tenantry";
    @JsonPropertyDescription("This cluster's name in the fleet (a DNS label); the operator registers it when the fleet lacks it.")
    public String clusterName = "local";
    @JsonPropertyDescription("The kubeconfig context that reaches this cluster, recorded when registering it; empty: clusterName.")
    public String clusterContext;
    @JsonPropertyDescription("Kubeconfig files whose contexts reach the fleet's other clusters, to allocate from them; the credentials stay in these files.")
    public List<String> kubeconfigs = new ArrayList<>();

    public String clusterContextOrName() {
      return clusterContext == null || clusterContext.isBlank() ? clusterName : clusterContext;
    }
  }

  /** The signup allocation API, {@code POST /v1/allocations} on {@link #httpPort}. */
  public static class Allocation {
    @JsonPropertyDescription("Serve the allocation API; needs fleet.datastoreProjectId (the allocation records) and tokenFile.")
    public boolean enabled = false;
    @JsonPropertyDescription("File holding the bearer token callers must present (surrounding whitespace ignored).")
    public String tokenFile;
    @JsonPropertyDescription("The SparePool of requests that name none.")
    public String defaultPool = "default";
    @JsonPropertyDescription("Largest request body accepted, in bytes; a larger one is answered 413.")
    public int maxRequestBytes = 4096;
    @JsonPropertyDescription("Retry-After, in seconds, of a 503 when no spare is Ready: about the time to build one.")
    public int retryAfterSeconds = 10;
    @JsonPropertyDescription("Seconds between reads of the registered clusters (and checks for allocations a killed process left unbound).")
    public int clusterRefreshSeconds = 30;
  }

  /** Images of the database engines; the tag is spec.databases[].version. */
  public static class DatabaseImages {
    @JsonPropertyDescription("Image of PostgreSQL databases, without tag.")
    public String postgres = "docker.io/library/postgres";
    @JsonPropertyDescription("Image of MySQL databases, without tag.")
    public String mysql = "docker.io/library/mysql";
    @JsonPropertyDescription("Image of Redis databases, without tag.")
    public String redis = "docker.io/library/redis";
  }

  public static OperatorConfig defaults() {
    return new OperatorConfig();
  }

  /** Reads a config file; unknown or malformed fields fail with the field named. */
  public static OperatorConfig load(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read config " + file, e);
    }
  }

  /** Parses and validates a YAML configuration. */
  public static OperatorConfig parse(String yaml) {
    OperatorConfig config;
    try {
      config = YAML.readValue(yaml, OperatorConfig.class);
    } catch (JsonMappingException e) {
      String field = e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
          .collect(Collectors.joining(".")).replace(".[", "[");
      throw new IllegalArgumentException("invalid operator configuration: " + field + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid operator configuration: " + e.getMessage(), e);
    }
    config = config == null ? defaults() : config;
    config.validate();
    return config;
  }

  public Duration resyncPeriod() {
    return Duration.ofSeconds(resyncPeriodSeconds);
  }

  /** Throws naming every field that is out of range. */
  public void validate() {
    List<String> errors = new ArrayList<>();
    if (namespacePrefix == null || !namespacePrefix.matches("^[a-z]([-a-z0-9]*)?$") || namespacePrefix.length() > 15) {
      errors.add("namespacePrefix: must be lowercase letters, digits and '-', starting with a letter, at most 15 characters");
    }
    if (workers < 1) {
      errors.add("workers: must be at least 1");
    }
    if (resyncPeriodSeconds < 0) {
      errors.add("resyncPeriodSeconds: must not be negative");
    }
    if (maxConcurrentRollouts < 1) {
      errors.add("maxConcurrentRollouts: must be at least 1");
    }
    if (rolloutDeadlineSeconds < 1) {
      errors.add("rolloutDeadlineSeconds: must be at least 1");
    }
    if (rateLimits.baseDelayMillis < 1 || rateLimits.maxDelaySeconds < 1 || rateLimits.qps <= 0 || rateLimits.burst < 1) {
      errors.add("rateLimits: baseDelayMillis, maxDelaySeconds, qps and burst must be positive");
    }
    if (leaderElection.renewDeadlineSeconds >= leaderElection.leaseDurationSeconds) {
      errors.add("leaderElection.renewDeadlineSeconds: must be shorter than leaseDurationSeconds");
    }
    validateServices(errors);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("invalid operator configuration: " + String.join("; ", errors));
    }
  }

  /** The secret store, fleet, allocation and plans sections. */
  private void validateServices(List<String> errors) {
    if (secretStore.location == null
        || !(secretStore.location.startsWith("file:") || secretStore.location.startsWith("gs://"))) {
      errors.add("secretStore.location: must be file:<directory> or gs://<bucket>");
    } else if (secretStore.location.startsWith("gs://") && (secretStore.kmsKeyName == null || secretStore.kmsKeyName.isBlank())) {
      errors.add("secretStore.kmsKeyName: required for a gs:// store");
    }
    if (secretStore.templateSyncSeconds < 1) {
      errors.add("secretStore.templateSyncSeconds: must be at least 1");
    }
    if (httpThreads < 1) {
      errors.add("httpThreads: must be at least 1");
    }
    if (fleet.clusterName == null || !fleet.clusterName.matches("^[a-z]([-a-z0-9]*[a-z0-9])?$") || fleet.clusterName.length() > 63) {
      errors.add("fleet.clusterName: must be a DNS label (lowercase letters, digits and '-', at most 63 characters)");
    }
    if (allocation.enabled) {
      if (fleet.datastoreProjectId == null || fleet.datastoreProjectId.isBlank()) {
        errors.add("fleet.datastoreProjectId: required when allocation.enabled (allocations are recorded in Datastore)");
      }
      if (allocation.tokenFile == null || allocation.tokenFile.isBlank()) {
        errors.add("allocation.tokenFile: required when allocation.enabled");
      }
    }
    if (allocation.maxRequestBytes < 256 || allocation.maxRequestBytes > 1 << 20) {
      errors.add("allocation.maxRequestBytes: must be between 256 and 1048576");
    }
    if (allocation.retryAfterSeconds < 1) {
      errors.add("allocation.retryAfterSeconds: must be at least 1");
    }
    if (allocation.clusterRefreshSeconds < 1) {
      errors.add("allocation.clusterRefreshSeconds: must be at least 1");
    }
    if (plans == null || plans.isEmpty()) {
      errors.add("plans: at least one plan is required");
    } else {
      plans.forEach((name, plan) -> plan.validate("plans." + name, errors));
    }
  }
}
