package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;
import io.tenantry.api.v1alpha1.Patterns;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a plan gives a tenant: the namespace's ResourceQuota ({@code quota}, any quota resource
 * name to a quantity, with object counts the plan does not name at {@link #DEFAULT_OBJECT_COUNTS}),
 * the LimitRange defaults for containers that set no resources, where its pods may connect beyond
 * their namespace and DNS ({@code egress}), and what its pods may ask of the nodes (priority class,
 * tolerations, user namespaces), which the admission policy holds every pod of the namespace to.
 * Immutable.
 */
public record Plan(
    @JsonPropertyDescription("ResourceQuota hard limits, e.g. requests.cpu: 2. Object counts it does not name get their defaults:"
        + " count/secrets 100, count/configmaps 100, count/services 50, count/serviceaccounts 20, count/deployments.apps 50,"
        + " count/statefulsets.apps 20, count/jobs.batch 100, count/replicasets.apps 200 (16 apps, the most a tenant has,"
        + " each keeping 10 old ReplicaSets and one rolling out, and 24 of the tenant's own).")
    Map<String, String> quota,
    @JsonPropertyDescription("LimitRange default requests of a container.")
    Map<String, String> defaultRequest,
    @JsonPropertyDescription("LimitRange default limits of a container.")
    Map<String, String> defaultLimit,
    @JsonPropertyDescription("StorageClass of database volumes; empty for the cluster's default.")
    String storageClassName,
    @JsonPropertyDescription("Destinations the tenant's pods may reach besides their own namespace and the cluster DNS; none: nothing else.")
    List<EgressRule> egress,
    @JsonPropertyDescription("PriorityClass of the tenant's pods; empty: none. No pod of the tenant's namespace may name another.")
    String priorityClassName,
    @JsonPropertyDescription("Tolerations of the tenant's pods; none: no taint is tolerated (but node not-ready and unreachable)."
        + " No pod of the tenant's namespace may carry another.")
    List<PlanToleration> tolerations,
    @JsonPropertyDescription("false: every pod of the tenant runs in a Kubernetes user namespace (spec.hostUsers: false), so"
        + " its root and UIDs map to unprivileged, per-pod host IDs; the nodes need Linux 6.3 or newer, a container runtime"
        + " that supports user namespaces (containerd 2.0, CRI-O 1.25) and the UserNamespacesSupport feature (on by default"
        + " from Kubernetes 1.33). Default true: the host's user IDs.")
    Boolean hostUsers,
    @JsonPropertyDescription("How the tenant's databases are backed up: every 24h in a 4h window from 01:00 UTC, 7 daily"
        + " and 4 weekly kept, every 7th restored in a drill, 2h deadline, unless the plan says otherwise.")
    BackupPolicy backup,
    @JsonPropertyDescription("The most pods an autoscaled app may have (spec.apps[].autoscaling.maxReplicas above it is lowered to"
        + " it, and reported); default 10.")
    Integer maxReplicasPerApp,
    @JsonPropertyDescription("What the poolers of one database (spec.databases[].pooler) may open on its server: 40 connections"
        + " together unless the plan says otherwise.")
    PoolerPolicy pooler) {

  /** Pods an autoscaled app may reach unless its plan says otherwise. */
  public static final int DEFAULT_MAX_REPLICAS_PER_APP = 10;

  /** The object counts a plan's quota holds at these unless it names them: enough that etcd cannot be filled by one tenant. */
  public static final Map<String, String> DEFAULT_OBJECT_COUNTS = defaultObjectCounts();

  public Plan {
    quota = frozen(withDefaultCounts(quota));
    defaultRequest = frozen(defaultRequest);
    defaultLimit = frozen(defaultLimit);
    egress = egress == null ? List.of() : List.copyOf(egress);
    priorityClassName = priorityClassName == null ? "" : priorityClassName;
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    hostUsers = hostUsers == null ? Boolean.TRUE : hostUsers;
    backup = backup == null ? BackupPolicy.DEFAULT : backup;
    maxReplicasPerApp = maxReplicasPerApp == null ? Integer.valueOf(DEFAULT_MAX_REPLICAS_PER_APP) : maxReplicasPerApp;
    pooler = pooler == null ? PoolerPolicy.DEFAULT : pooler;
  }

  /** This plan with {@code quota} instead of its own. */
  public Plan withQuota(Map<String, String> quota) {
    return new Plan(quota, defaultRequest, defaultLimit, storageClassName, egress, priorityClassName, tolerations, hostUsers,
        backup, maxReplicasPerApp, pooler);
  }

  /** This plan with {@code max} pods at most per autoscaled app. */
  public Plan withMaxReplicasPerApp(int max) {
    return new Plan(quota, defaultRequest, defaultLimit, storageClassName, egress, priorityClassName, tolerations, hostUsers,
        backup, max, pooler);
  }

  /** This plan with {@code pooler} as its poolers' and servers' connection budget. */
  public Plan withPooler(PoolerPolicy pooler) {
    return new Plan(quota, defaultRequest, defaultLimit, storageClassName, egress, priorityClassName, tolerations, hostUsers,
        backup, maxReplicasPerApp, pooler);
  }

  private static Map<String, String> defaultObjectCounts() {
    Map<String, String> counts = new LinkedHashMap<>();
    counts.put("count/secrets", "100");
    counts.put("count/configmaps", "100");
    counts.put("count/services", "50");
    counts.put("count/serviceaccounts", "20");
    counts.put("count/deployments.apps", "50");
    counts.put("count/statefulsets.apps", "20");
    counts.put("count/jobs.batch", "100");
    counts.put("count/replicasets.apps", "200");
    return Collections.unmodifiableMap(counts);
  }

  private static Map<String, String> withDefaultCounts(Map<String, String> quota) {
    Map<String, String> merged = new LinkedHashMap<>(quota == null ? Map.of() : quota);
    DEFAULT_OBJECT_COUNTS.forEach(merged::putIfAbsent);
    return merged;
  }

  private static final Pattern DNS_SUBDOMAIN = Pattern.compile(Patterns.DNS_SUBDOMAIN);

  private static Map<String, String> frozen(Map<String, String> values) {
    return values == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  void validate(String path, List<String> errors) {
    checkQuantities(path + ".quota", quota, errors);
    checkQuantities(path + ".defaultRequest", defaultRequest, errors);
    checkQuantities(path + ".defaultLimit", defaultLimit, errors);
    for (int i = 0; i < egress.size(); i++) {
      egress.get(i).validate(path + ".egress[" + i + "]", errors);
    }
    if (!priorityClassName.isEmpty() && !DNS_SUBDOMAIN.matcher(priorityClassName).matches()) {
      errors.add(path + ".priorityClassName: '" + priorityClassName + "' is not a PriorityClass name");
    }
    for (int i = 0; i < tolerations.size(); i++) {
      tolerations.get(i).validate(path + ".tolerations[" + i + "]", errors);
    }
    backup.validate(path + ".backup", errors);
    if (maxReplicasPerApp < 1) {
      errors.add(path + ".maxReplicasPerApp: must be at least 1");
    }
    pooler.validate(path + ".pooler", errors);
  }

  private static void checkQuantities(String path, Map<String, String> values, List<String> errors) {
    values.forEach((key, value) -> {
      try {
        Quantity.getAmountInBytes(new Quantity(value));
      } catch (IllegalArgumentException | ArithmeticException e) {
        errors.add(path + "." + key + ": '" + value + "' is not a quantity");
      }
    });
  }
}
