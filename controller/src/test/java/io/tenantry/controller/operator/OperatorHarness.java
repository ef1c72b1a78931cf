package io.tenantry.controller.operator;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSecretRef;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.ConfigFile;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.MigrationSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.transfer.TransferTokens;
import io.tenantry.controller.backup.BackupRuntime;
import io.tenantry.controller.cache.InformerRetries;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.StoreUnavailableException;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;

/**
 * An operator running in the test JVM against a test cluster, with a client that counts its requests.
 * Public, and shipped in the controller's test-jar, for the deploy module's rollout tests.
 */
public final class OperatorHarness implements AutoCloseable {

  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  public final RequestCounter requests = new RequestCounter();
  public final Path storeDirectory;
  public final SecretStore store;
  public final KubernetesClient operatorClient;
  private final OperatorConfig config;
  private final TenantCleanup fleetCleanup;
  private final FleetRecords fleet;
  /** Where backups go; null: backups are off. */
  private final BackupStore backupStore;
  private final io.fabric8.kubernetes.client.Config adminConfig;
  /** The running operator; replaced by {@link #restart()}. */
  public Operator operator;
  /** The running operator's collaborators (its queue, caches, metrics); replaced by {@link #restart()}. */
  public Operator.Parts parts;
  /** The allocation API, once {@link #serveAllocations} started it. */
  public AllocationService allocation;
  /** The allocation API's collaborators, once {@link #serveAllocations} started it. */
  public AllocationService.Parts allocationParts;

  public OperatorHarness(TestCluster cluster, OperatorConfig config) throws Exception {
    this(cluster, config, (SecretStore) null);
  }

  public OperatorHarness(TestCluster cluster, OperatorConfig config, SecretStore store) throws Exception {
    this(cluster, config, store, TenantCleanup.NONE);
  }

  public OperatorHarness(TestCluster cluster, OperatorConfig config, SecretStore store, TenantCleanup fleetCleanup) throws Exception {
    this(cluster, config, store, fleetCleanup, cluster.config());
  }

  /**
   * An operator on {@code store} (a new local store in a temporary directory when null) with
   * {@code fleetCleanup}, talking to the cluster as {@code identity} (the admin, or a ServiceAccount).
   */
  public OperatorHarness(TestCluster cluster, OperatorConfig config, SecretStore store, TenantCleanup fleetCleanup,
      io.fabric8.kubernetes.client.Config identity) throws Exception {
    this(cluster, config, store, fleetCleanup, identity, null);
  }

  /** An operator on a new local store whose fleet records (purges, hostname claims) are {@code fleet}. */
  public OperatorHarness(TestCluster cluster, OperatorConfig config, FleetRecords fleet) throws Exception {
    this(cluster, config, null, TenantCleanup.fleet(fleet, config.fleet().clusterName()), cluster.config(), fleet, null);
  }

  /**
   * An operator on a new local store that backs up into {@code backups}, sealing with the store's
   * keyset; its transfer endpoint listens on a free port of this machine, where the test, acting as
   * the kubelet, runs the backup Jobs' agents.
   */
  public static OperatorHarness withBackups(TestCluster cluster, OperatorConfig config, BackupStore backups) throws Exception {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    OperatorConfig withBackups = config.with("{backups: {enabled: true, transferPort: " + port
        + ", transferUrl: \"http://127.0.0.1:" + port + "\"}}");
    return new OperatorHarness(cluster, withBackups, null, TenantCleanup.NONE, cluster.config(), null, backups);
  }

  private OperatorHarness(TestCluster cluster, OperatorConfig config, SecretStore store, TenantCleanup fleetCleanup,
      io.fabric8.kubernetes.client.Config identity, FleetRecords fleet) throws Exception {
    this(cluster, config, store, fleetCleanup, identity, fleet, null);
  }

  private OperatorHarness(TestCluster cluster, OperatorConfig config, SecretStore store, TenantCleanup fleetCleanup,
      io.fabric8.kubernetes.client.Config identity, FleetRecords fleet, BackupStore backupStore) throws Exception {
    this.fleetCleanup = fleetCleanup;
    this.fleet = fleet;
    this.backupStore = backupStore;
    this.adminConfig = cluster.config();
    installCrds(cluster);
    operatorClient = new KubernetesClientBuilder().withConfig(InformerRetries.clientConfig(identity))
        .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("count", requests))
        .build();
    // Any free ports, unless the test named the API port (another process must reach it, as the edge's gate does).
    config = config.with(config.httpPort() != OperatorConfig.defaults().httpPort()
        ? "{probePort: 0, leaderElection: {enabled: false}}" : "{httpPort: 0, probePort: 0, leaderElection: {enabled: false}}");
    storeDirectory = Files.createTempDirectory("tenantry-store-");
    this.store = store != null ? store : LocalSecretStore.init(storeDirectory, storeDirectory.resolve("keyset.json"));
    this.config = config;
    operator = start();
  }

  /** The backup runtime the operator gets: the store's keyset is the key of its backups too. */
  public BackupRuntime backupRuntime() {
    if (backupStore == null) {
      return null;
    }
    com.google.crypto.tink.Aead kek = io.tenantry.secretstore.LocalKeyset.load(storeDirectory.resolve("keyset.json"));
    return new BackupRuntime(backupStore, kek, new TransferTokens(kek, java.time.Clock.systemUTC()), config.backupTransferUrl(),
        config.fleet().clusterName());
  }

  private Operator start() throws Exception {
    String identity = "test-" + ProcessHandle.current().pid();
    parts = Operator.wire(operatorClient, config, identity, store, fleetCleanup, fleet, backupRuntime());
    Operator started = new Operator(operatorClient, config, identity, () -> {
      throw new IllegalStateException("an operator without leader election cannot lose leadership");
    }, parts);
    started.start();
    await().atMost(Duration.ofMinutes(1)).until(started::isReady);
    return started;
  }

  /**
   * Serves the allocation API from this operator, on {@code records}, with {@code config}'s
   * allocation and fleet settings (the token file is written here). Closed with the harness.
   */
  public AllocationCalls serveAllocations(FleetRecords records, String token) throws Exception {
    Path tokenFile = storeDirectory.resolve("allocation-token");
    Files.writeString(tokenFile, token + "\n");
    OperatorConfig serving = config.with("{fleet: {datastoreProjectId: %s}, allocation: {enabled: true, tokenFile: '%s'}}"
        .formatted(io.tenantry.spares.DatastoreEmulator.PROJECT_ID, tokenFile));
    allocationParts = AllocationService.wire(serving, operatorClient, records, operator.registry(), java.time.Clock.systemUTC(),
        operator.boundRoutes());
    allocation = AllocationService.start(operator, allocationParts, serving.allocation().clusterRefreshSeconds());
    return new AllocationCalls(operator.httpPort(), token);
  }

  /** Stops the operator gracefully and starts a new one on the same cluster and store, as a restart would. */
  public void restart() throws Exception {
    operator.close();
    operator = start();
  }

  /** {@code config} with one more plan, "tight": the standard plan admitting at most {@code pods} pods. */
  public static OperatorConfig withTightPlan(OperatorConfig config, int pods) {
    Plan standard = config.plans().get("standard");
    Map<String, String> quota = new LinkedHashMap<>(standard.quota());
    quota.put("pods", Integer.toString(pods));
    Map<String, Plan> plans = new LinkedHashMap<>(config.plans());
    plans.put("tight", standard.withQuota(quota));
    return config.with(Serialization.asJson(Map.of("plans", plans)));
  }

  /**
   * The local store in {@code directory} with its default keyset ({@code directory/keyset.json}),
   * made first when there is none (the operator never makes one), for tests that start the operator
   * as a process on {@code secretStore.location: file:<directory>}.
   */
  public static SecretStore localStore(Path directory) {
    Path keyset = directory.resolve("keyset.json");
    try {
      return LocalSecretStore.open(directory, keyset);
    } catch (StoreUnavailableException e) {
      return LocalSecretStore.init(directory, keyset);
    }
  }

  public static void installCrds(TestCluster cluster) {
    try (KubernetesClient client = cluster.newClient()) {
      Crds.install(client, Tenant.class.getResource("/META-INF/fabric8/tenants.tenantry.io-v1.yml"));
      Crds.install(client, SparePool.class.getResource("/META-INF/fabric8/sparepools.tenantry.io-v1.yml"));
    }
  }

  /**
   * A backup policy's window (YAML fields) that opens 12 h from now and lasts 1 h: a tenant's first
   * backup is due at once (it has none), and its next slot cannot come while a test runs. With the
   * default window (01:00, 4 h), a test run in those hours saw slots pass and tenants backed up twice.
   */
  public static String backupWindowAway() {
    LocalTime opens = LocalTime.now(ZoneOffset.UTC).plusHours(12).truncatedTo(ChronoUnit.MINUTES);
    return "windowStart: '" + opens + "', window: 1h";
  }

  public static String uniqueName(String prefix) {
    return prefix + "-" + Long.toString(ProcessHandle.current().pid() % 10000, 36) + "-" + SEQUENCE.incrementAndGet();
  }

  public static Tenant tenant(String name, int webReplicas, boolean database) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.setOrganization("Acme Corp");
    spec.setEmail("ops@acme.example");
    AppSpec web = new AppSpec("web", "registry.example.com/acme/web", "1.0.0", webReplicas, 8080);
    web.getRoutes().add(new AppRoute("/"));
    spec.getApps().add(web);
    if (database) {
      spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi"));
    }
    tenant.setSpec(spec);
    return tenant;
  }

  /**
   * A tenant using everything an app can: PostgreSQL "main" and Redis "cache"; "web" bound to both, with
   * the template secret "smtp" as files and "stripe" as environment ({@link #putWorkingTemplates}), a
   * configuration file, a readiness path and a migration.
   */
  public static Tenant workingTenant(String name) {
    Tenant tenant = tenant(name, 1, true);
    tenant.getSpec().getDatabases().add(new DatabaseSpec("cache", DatabaseEngine.REDIS, "7.2", "1Gi"));
    AppSpec web = tenant.getSpec().getApps().get(0);
    web.setDatabases(List.of("main", "cache"));
    web.getSecrets().add(new AppSecretRef("smtp", false));
    web.getSecrets().add(new AppSecretRef("stripe", true));
    web.getConfig().add(new ConfigFile("app.yaml", "features: [search]\n"));
    web.setReadinessPath("/healthz");
    web.setMigrate(new MigrationSpec(List.of("/app/migrate"), List.of("--to-latest")));
    return tenant;
  }

  /** Stores the template secrets {@link #workingTenant} names, and distributes them. */
  public void putWorkingTemplates() {
    store.put(Scope.template(), "smtp", Map.of("password", "smtp-1".getBytes(StandardCharsets.UTF_8)));
    store.put(Scope.template(), "stripe", Map.of("STRIPE_KEY", "sk-1".getBytes(StandardCharsets.UTF_8)));
    parts.templates().refresh();
  }

  /** A SparePool whose spares run one app "web" of one replica. */
  public static SparePool sparePool(String name, int buffer, int maxProvisioning) {
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, 8080));
    SparePool pool = new SparePool();
    pool.getMetadata().setName(name);
    pool.setSpec(new SparePoolSpec(buffer, maxProvisioning, template));
    return pool;
  }

  /** The pool's Ready spares in the cluster, by name. */
  public static List<Tenant> readySpares(KubernetesClient client, String pool) {
    return client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().stream()
        .filter(Spares::isReady).sorted(Comparator.comparing(t -> t.getMetadata().getName())).toList();
  }

  /** Sets the first app's version as {@code kubectl patch --type=json} would: no read-modify-write, no conflict. */
  public static void setAppVersion(KubernetesClient client, String name, String version) {
    client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON),
        "[{\"op\":\"replace\",\"path\":\"/spec/apps/0/version\",\"value\":\"" + version + "\"}]");
  }

  /** Sets spec.state with a JSON patch, as {@code kubectl patch} would. */
  public static void setState(KubernetesClient client, String name, TenantState state) {
    client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"state\":\"" + state + "\"}}");
  }

  /**
   * Installs the shipped admission policies and the tenant roles (the ClusterRoles every tenant
   * namespace binds), as the plain manifests (deploy/manifests/tenantry.yaml) hold them.
   */
  public static void installAdmissionPolicy(KubernetesClient client) throws Exception {
    installShipped(client, o -> o.getKind().startsWith("ValidatingAdmissionPolicy")
        || o instanceof ClusterRole role && "tenant-role".equals(role.getMetadata().getLabels().get("app.kubernetes.io/component")));
  }

  /**
   * Installs the operator's account as the plain manifests hold it: its namespace, ServiceAccount,
   * ClusterRole and namespaced Role with their bindings, and the tenant roles it may bind.
   */
  public static void installOperatorAccount(KubernetesClient client) throws Exception {
    installShipped(client, o -> o instanceof Namespace || o instanceof ServiceAccount || o.getKind().startsWith("ClusterRole")
        || o instanceof Role || o instanceof RoleBinding);
  }

  /** The objects of the plain manifests (deploy/manifests/tenantry.yaml, rendered from the chart). */
  public static List<HasMetadata> shippedManifests(KubernetesClient client) throws Exception {
    Path manifest = TestBinaries.locate().toolsDir().getParent().resolve("deploy/manifests/tenantry.yaml");
    try (InputStream in = Files.newInputStream(manifest)) {
      return client.load(in).items();
    }
  }

  private static void installShipped(KubernetesClient client, Predicate<HasMetadata> which) throws Exception {
    List<HasMetadata> objects = shippedManifests(client).stream().filter(which).toList();
    client.resourceList(objects).forceConflicts().serverSideApply();
  }

  /** Waits for the tenant's phase; on a timeout the failure says what the tenant's pods were waiting for. */
  public static Tenant awaitPhase(KubernetesClient client, String name, TenantPhase phase, Duration timeout) {
    try {
      await().atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
        Tenant t = client.resources(Tenant.class).withName(name).get();
        return t != null && t.getStatus() != null && t.getStatus().getPhase() == phase;
      });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("tenant " + name + " not " + phase + " within " + timeout + "\n" + podsAndEvents(client, name), e);
    }
    return client.resources(Tenant.class).withName(name).get();
  }

  /**
   * The tenant's status conditions, its namespace's pods (phase, node, conditions) and events: what
   * a test that timed out was waiting for (a pod the scheduler held, a volume not bound...).
   */
  private static String podsAndEvents(KubernetesClient client, String name) {
    StringBuilder out = new StringBuilder();
    Tenant tenant = client.resources(Tenant.class).withName(name).get();
    String ns = tenant != null && tenant.getStatus() != null && tenant.getStatus().getNamespace() != null
        ? tenant.getStatus().getNamespace() : "tenant-" + name;
    if (tenant != null && tenant.getStatus() != null) {
      tenant.getStatus().getConditions().forEach(c -> out.append("condition ").append(c.getType()).append('=')
          .append(c.getStatus()).append(' ').append(c.getReason()).append(": ").append(c.getMessage()).append('\n'));
    }
    for (Pod pod : client.pods().inNamespace(ns).list().getItems()) {
      out.append("pod ").append(pod.getMetadata().getName()).append(' ').append(pod.getStatus().getPhase())
          .append(" node=").append(pod.getSpec().getNodeName());
      pod.getStatus().getConditions().forEach(c -> out.append(' ').append(c.getType()).append('=').append(c.getStatus())
          .append(c.getReason() == null ? "" : "(" + c.getReason() + ")").append('@').append(c.getLastTransitionTime()));
      out.append('\n');
    }
    client.v1().events().inNamespace(ns).list().getItems().stream()
        .sorted(Comparator.comparing(ev -> String.valueOf(ev.getLastTimestamp())))
        .forEach(ev -> out.append("event ").append(ev.getLastTimestamp()).append(' ').append(ev.getInvolvedObject().getKind())
            .append('/').append(ev.getInvolvedObject().getName()).append(' ').append(ev.getReason()).append(": ")
            .append(ev.getMessage()).append('\n'));
    return out.toString();
  }

  /** Waits until the queue is empty and every sync that was started has finished. */
  public void awaitIdle() {
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
        .until(() -> parts.queue().len() == 0 && parts.workers().inProgress() == 0);
  }

  /**
   * Purges and deletes every Tenant in the cluster, so that the next test class's operator starts
   * from an empty cluster; the purge path itself is exercised for every tenant a class created.
   */
  public void purgeAll(KubernetesClient client) {
    client.resources(SparePool.class).delete(); // A pool would refill what is purged.
    int tenants = client.resources(Tenant.class).list().getItems().size();
    // A pool's sync running as the pool is deleted may still create a spare: each round asks
    // whatever is there now to be purged, not only the tenants of the first listing.
    // A fleet of a few hundred (BackupSlotsIT) takes minutes: each namespace waits for its pods.
    await().atMost(Duration.ofMinutes(3).plusSeconds(tenants)).pollInterval(Duration.ofSeconds(1)).until(() -> {
      boolean purged = true;
      for (Tenant tenant : client.resources(Tenant.class).list().getItems()) {
        String name = tenant.getMetadata().getName();
        if (tenant.getSpec().getState() == TenantState.Active) {
          setState(client, name, TenantState.Frozen);
        }
        if (tenant.getSpec().getState() != TenantState.Purged) {
          setState(client, name, TenantState.Purged);
        }
        purged &= tenant.getStatus() != null && tenant.getStatus().getPhase() == TenantPhase.Purged;
      }
      return purged;
    });
    client.resources(Tenant.class).delete();
    await().atMost(Duration.ofMinutes(1)).until(() -> client.resources(Tenant.class).list().getItems().isEmpty());
  }

  @Override
  public void close() {
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(adminConfig).build()) {
      purgeAll(client);
      // The next test class's operator has a store of its own: templates left here would be a mass
      // deletion its template sync rightly refuses.
      client.secrets().inNamespace(config.templateNamespace()).withLabel(WellKnown.TEMPLATE, "true").delete();
    } finally {
      if (allocation != null) {
        allocation.close();
      }
      operator.close();
      operatorClient.close();
    }
  }
}
