package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.setAppVersion;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AppStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.SparePoolStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.rollout.Readiness;
import io.tenantry.controller.status.Conditions;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator process SIGKILLed at random moments, and restarted each time, while tenants are
 * provisioned (created in waves; some of them spares of a SparePool, some of those bound to
 * customers meanwhile) and then while an app version rolls across all of them (in waves too, as a
 * fleet rollout does, and on the pool's template). Every tenant converges and the kills leave
 * no trace: no owned object recreated or added, no ReplicaSet beyond one per version (a Deployment
 * changed by nothing but the rollout), no database password regenerated, the pool never beyond
 * its buffer nor building more than maxProvisioning at once, and every status agreeing with the
 * cluster.
 *
 * <p>Sizes: {@code -Dtenantry.faults.tenants} (default 40) and {@code -Dtenantry.faults.kills}
 * (default 5), on a simulated cluster of the class's own with a node per 40 tenants;
 * {@code tools/fault-suite.sh} runs it at 200 and 20. The kill delays come from a seed that is
 * printed; {@code -Dtenantry.faults.seed} replays them.
 */
class OperatorKillIT {

  private static final int TENANTS = Integer.getInteger("tenantry.faults.tenants", 40);
  private static final int KILLS = Integer.getInteger("tenantry.faults.kills", 5);
  private static final long SEED = Long.getLong("tenantry.faults.seed", System.currentTimeMillis());
  /** The longest a process runs once ready before it is killed: kills land in startup resyncs and mid-provisioning. */
  private static final int MAX_LIFE_MILLIS = 6_000;
  // A fifth of the tenants are spares of a pool, and half as many again spares bound to customers while it refills.
  private static final int BUFFER = Math.max(2, TENANTS / 5);
  private static final int BOUND = Math.max(1, BUFFER / 2);
  private static final int MAX_PROVISIONING = Math.max(2, BUFFER / 2);
  private static final int DIRECT = TENANTS - BUFFER - BOUND;
  private static final Duration CONVERGENCE = Duration.ofSeconds(Math.max(180, TENANTS * 3L));
  private static final String OLD = "1.0.0";
  private static final String NEW = "2.0.0";
  private static final String CLUSTER = "opkill-" + Long.toString(ProcessHandle.current().pid() % 10000, 36);
  private static final Random RANDOM = new Random(SEED);

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static Path workDir;
  private static SecretStore store;
  private static int incarnations;
  private static OperatorProcess operator;
  private static int probePort;

  @BeforeAll
  static void start() throws IOException {
    // A cluster of its own, with room for every tenant's two pods and a rollout's surge: a kwok
    // node takes 110 pods, the shared cluster's 3 nodes not 200 tenants. It goes away with its
    // tenants, so no purge afterwards.
    cluster = TestClusters.start(ClusterKind.SIMULATED, CLUSTER, 1 + TENANTS / 40);
    client = cluster.newClient();
    OperatorHarness.installCrds(cluster);
    workDir = Files.createTempDirectory("operator-kill-");
    OperatorProcess.writeKubeconfig(workDir, cluster);
    // The operators open the store; making one is the installer's job (tenantry-secrets init).
    store = OperatorHarness.localStore(workDir.resolve("store"));
    System.out.printf("operator logs in %s%n", workDir);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (operator != null) {
        assertThat(operator.stop(Duration.ofSeconds(30))).as("the last operator stops on SIGTERM").isTrue();
      }
    } finally {
      if (client != null) {
        client.close();
      }
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Test
  void killedAtRandomWhileProvisioningAndRollingOutEveryTenantConvergesAndNothingIsDuplicatedOrRegenerated() throws Exception {
    System.out.printf("[reliability] operator kills: %d tenants (%d created, %d bound spares, a pool of %d spares building at most %d),"
        + " %d kills (seed %d)%n", TENANTS, DIRECT, BOUND, BUFFER, MAX_PROVISIONING, KILLS, SEED);
    String pool = uniqueName("kill-pool");
    List<String> direct = new ArrayList<>();
    for (int i = 0; i < DIRECT; i++) {
      direct.add(uniqueName("kill"));
    }
    SpareCounts spares = new SpareCounts();
    SharedIndexInformer<Tenant> sampler = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).inform(spares, 0);
    try {
      startOperator();

      // Phase 1: tenants created in waves, one before each kill, and spares bound as they become Ready.
      client.resources(SparePool.class).resource(pool(pool)).create();
      CompletableFuture<Void> binding = CompletableFuture.runAsync(() -> bindSpares(pool, BOUND));
      Kills provisioningKills = killAtRandom(KILLS / 2, direct, name -> client.resources(Tenant.class).resource(tenant(name)).create(),
          () -> converged(direct, pool, OLD));
      binding.get();
      await().atMost(CONVERGENCE).pollInterval(Duration.ofSeconds(2)).until(() -> converged(direct, pool, OLD));
      double provisioned = secondsSince(provisioningKills.last());
      spares.provisioned();
      List<Tenant> tenants = tenants(direct, pool);
      Snapshot before = Snapshot.of(tenants);

      // Phase 2: the version rolls across the spares (the pool's template) and, in waves as a fleet
      // rollout would, across the other tenants, one wave before each kill.
      client.resources(SparePool.class).withName(pool).patch(PatchContext.of(PatchType.JSON),
          "[{\"op\":\"replace\",\"path\":\"/spec/template/apps/0/version\",\"value\":\"" + NEW + "\"}]");
      List<String> active = tenants.stream().filter(t -> t.getSpec().getState() == TenantState.Active)
          .map(t -> t.getMetadata().getName()).toList();
      Kills rolloutKills = killAtRandom(KILLS - KILLS / 2, active, name -> setAppVersion(client, name, NEW),
          () -> converged(direct, pool, NEW));
      await().atMost(CONVERGENCE).pollInterval(Duration.ofSeconds(2)).until(() -> converged(direct, pool, NEW));
      System.out.printf("[reliability] operator kills: provisioning converged %.0f s after its last kill (%d kills, %d before it"
          + " had converged), the rollout to %s %.0f s after its last kill (%d kills, %d before it had converged)%n", provisioned,
          KILLS / 2, provisioningKills.beforeConverged(), NEW, secondsSince(rolloutKills.last()), KILLS - KILLS / 2,
          rolloutKills.beforeConverged());
      assertNoTrace(before, tenants(direct, pool), spares);
    } finally {
      sampler.close();
    }
  }

  /** Prints and asserts what the kills left behind, compared with {@code before}: nothing. */
  private static void assertNoTrace(Snapshot before, List<Tenant> after, SpareCounts spares) {
    Snapshot now = Snapshot.of(after);
    Set<String> names = before.passwords.keySet();
    int recreated = (int) before.uids.keySet().stream()
        .filter(k -> now.uids.containsKey(k) && !before.uids.get(k).equals(now.uids.get(k))).count();
    int added = (int) now.uids.keySet().stream().filter(k -> !before.uids.containsKey(k)).count();
    int lost = (int) before.uids.keySet().stream().filter(k -> !now.uids.containsKey(k)).count();
    int extraReplicaSets = extraReplicaSets(names);
    int extraNamespaces = extraNamespaces(names);
    int duplicates = recreated + added + extraReplicaSets + extraNamespaces;
    int changed = (int) names.stream().filter(n -> !Objects.equals(before.passwords.get(n), now.passwords.get(n))).count();
    int unlikeStore = unlikeStore(names);
    int statusesTrue = statusesTrueToTheCluster(after);

    System.out.printf("[reliability] operator kills: %d duplicate objects (%d recreated, %d added, %d ReplicaSets beyond one per"
        + " version, %d extra namespaces) among %d owned objects, %d lost; %d of %d database passwords changed, %d unlike the store%n",
        duplicates, recreated, added, extraReplicaSets, extraNamespaces, before.uids.size(), lost, changed, names.size(), unlikeStore);
    System.out.printf("[reliability] operator kills: spares max %d of max %d, at most %d building of max %d, %d created for %d needed;"
        + " %d/%d statuses true to the cluster%n", spares.mostUnallocated, BUFFER, spares.mostBuilding, MAX_PROVISIONING,
        spares.seen.size(), BUFFER + BOUND, statusesTrue, after.size());

    assertThat(after).as("tenants").hasSize(TENANTS);
    assertThat(duplicates).as("duplicate objects").isZero();
    assertThat(lost).as("owned objects lost").isZero();
    assertThat(changed).as("database passwords changed").isZero();
    assertThat(unlikeStore).as("credentials Secrets unlike the store").isZero();
    assertThat(spares.mostUnallocated).as("most unallocated spares at once").isEqualTo(BUFFER);
    assertThat(spares.mostBuilding).as("most spares building at once").isBetween(1, MAX_PROVISIONING);
    assertThat(spares.seen).as("spares the pool created").hasSize(BUFFER + BOUND);
    assertThat(statusesTrue).as("statuses true to the cluster").isEqualTo(TENANTS);
  }

  /** What must survive the kills: each tenant's password digest, and every owned object's uid. */
  private record Snapshot(Map<String, String> passwords, Map<String, String> uids) {

    static Snapshot of(List<Tenant> tenants) {
      Set<String> names = tenants.stream().map(t -> t.getMetadata().getName()).collect(Collectors.toSet());
      return new Snapshot(OperatorKillIT.passwords(names), ownedUids(names));
    }
  }

  /**
   * Kills the running operator {@code kills} times, each a random time (up to {@link #MAX_LIFE_MILLIS})
   * after it became ready, and starts the next one at once, as a Deployment would. Before each kill,
   * one more wave of {@code items} is handed to {@code change} (all of them when there is no kill).
   */
  private static Kills killAtRandom(int kills, List<String> items, Consumer<String> change, BooleanSupplier converged)
      throws Exception {
    long last = System.nanoTime();
    int beforeConverged = 0;
    int waves = Math.max(1, kills);
    for (int i = 0; i < waves; i++) {
      items.subList(items.size() * i / waves, items.size() * (i + 1) / waves).forEach(change);
      if (i >= kills) {
        break;
      }
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> OperatorProcess.httpStatus(probePort, "/readyz") == 200);
      int life = RANDOM.nextInt(MAX_LIFE_MILLIS + 1);
      Thread.sleep(life);
      boolean working = !converged.getAsBoolean();
      operator.kill();
      last = System.nanoTime();
      beforeConverged += working ? 1 : 0;
      System.out.printf("killed %s %.1f s after it was ready%s%n", operator.identity(), life / 1000.0, working ? "" : ", all converged");
      startOperator();
    }
    return new Kills(last, beforeConverged);
  }

  /** A phase's kills: when the last happened ({@link System#nanoTime}), and how many came before the phase had converged. */
  private record Kills(long last, int beforeConverged) {
  }

  private static void startOperator() throws IOException {
    probePort = OperatorProcess.freePort();
    // One process at a time, so no leader election: it would only add the lease's expiry to every
    // restart (LeaderElectionIT covers a killed leader's successor).
    operator = OperatorProcess.start(workDir, "operator-" + incarnations++, """
        httpPort: 0
        probePort: %d
        secretStore:
          location: file:%s
        leaderElection:
          enabled: false
        """.formatted(probePort, workDir.resolve("store")));
  }

  /** Binds {@code count} spares to customers as they become Ready, by hand as the allocation API would. */
  private static void bindSpares(String pool, int count) {
    Set<String> bound = new HashSet<>();
    await().atMost(CONVERGENCE).pollInterval(Duration.ofSeconds(1)).until(() -> {
      for (Tenant spare : OperatorHarness.readySpares(client, pool)) {
        if (bound.size() < count && bound.add(spare.getMetadata().getName())) {
          client.resources(Tenant.class).withName(spare.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"state\":\"Active\",\"organization\":\"Org %d\",\"email\":\"ops@org%d.example\"}}"
                  .formatted(bound.size(), bound.size()));
        }
      }
      return bound.size() == count;
    });
  }

  /**
   * Every created tenant and bound spare Ready at {@code version}, and the pool full: exactly its
   * buffer of unallocated spares, all Ready at {@code version}, which its status reports.
   */
  private static boolean converged(List<String> direct, String pool, String version) {
    List<Tenant> tenants = tenants(direct, pool);
    long unallocated = tenants.stream().filter(Spares::isUnallocated).count();
    long bound = tenants.stream().filter(t -> t.getSpec().getState() == TenantState.Active && Spares.pool(t) != null).count();
    SparePool sparePool = client.resources(SparePool.class).withName(pool).get();
    SparePoolStatus status = sparePool == null ? null : sparePool.getStatus();
    return tenants.size() == TENANTS && unallocated == BUFFER && bound == BOUND
        && tenants.stream().allMatch(t -> readyAt(t, version))
        && status != null && Integer.valueOf(BUFFER).equals(status.getReady()) && Integer.valueOf(0).equals(status.getProvisioning())
        && Integer.valueOf(BOUND).equals(status.getAllocated());
  }

  private static boolean readyAt(Tenant t, String version) {
    return t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready
        && Objects.equals(t.getStatus().getObservedGeneration(), t.getMetadata().getGeneration())
        && version.equals(t.getSpec().getApps().get(0).getVersion()) && ("web=" + version).equals(t.getStatus().getVersions());
  }

  /** The created tenants and the pool's tenants (spares and bound ones) in the cluster. */
  private static List<Tenant> tenants(List<String> direct, String pool) {
    Set<String> created = Set.copyOf(direct);
    return client.resources(Tenant.class).list().getItems().stream()
        .filter(t -> created.contains(t.getMetadata().getName()) || pool.equals(Spares.pool(t))).toList();
  }

  /** A digest of each tenant's database password, as its credentials Secret holds it (never printed). */
  private static Map<String, String> passwords(Set<String> tenants) {
    Map<String, String> passwords = new HashMap<>();
    for (String tenant : tenants) {
      Secret secret = client.secrets().inNamespace(namespace(tenant)).withName(Names.credentials("main")).get();
      passwords.put(tenant, secret == null ? null : sha256(secret.getData().get(DatabaseModel.PASSWORD_KEY)));
    }
    return passwords;
  }

  private static String sha256(String value) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Tenants whose credentials Secret holds another password than the store: the store is the truth. */
  private static int unlikeStore(Set<String> tenants) {
    int unlike = 0;
    for (String tenant : tenants) {
      Secret secret = client.secrets().inNamespace(namespace(tenant)).withName(Names.credentials("main")).get();
      byte[] stored = store.get(Scope.tenant(tenant), Names.credentials("main"))
          .map(s -> s.data().get(DatabaseModel.PASSWORD_KEY)).orElse(null);
      if (secret == null || stored == null
          || !Arrays.equals(Base64.getDecoder().decode(secret.getData().get(DatabaseModel.PASSWORD_KEY)), stored)) {
        unlike++;
      }
    }
    return unlike;
  }

  /** The uid of every object the operator owns for {@code tenants}, by kind, namespace and name. */
  private static Map<String, String> ownedUids(Set<String> tenants) {
    Map<String, String> uids = new TreeMap<>();
    for (Class<? extends HasMetadata> kind : InformerCache.OWNED_KINDS) {
      for (HasMetadata o : owned(kind)) {
        if (tenants.contains(o.getMetadata().getLabels().get(Labels.TENANT))) {
          uids.put(o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(), o.getMetadata().getUid());
        }
      }
    }
    return uids;
  }

  private static <T extends HasMetadata> List<T> owned(Class<T> kind) {
    return (kind == Namespace.class ? client.resources(kind).withLabel(Labels.MANAGED_BY, Labels.MANAGER)
        : client.resources(kind).inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER)).list().getItems();
  }

  /** ReplicaSets beyond one per version of each Deployment: every other change of a pod template makes one. */
  private static int extraReplicaSets(Set<String> tenants) {
    Map<String, List<ReplicaSet>> byDeployment = client.apps().replicaSets().inAnyNamespace().withLabel(Labels.TENANT).list()
        .getItems().stream().filter(rs -> tenants.contains(rs.getMetadata().getLabels().get(Labels.TENANT)))
        .collect(Collectors.groupingBy(rs -> rs.getMetadata().getNamespace() + "/" + rs.getMetadata().getOwnerReferences().get(0).getName()));
    int extra = 0;
    for (List<ReplicaSet> sets : byDeployment.values()) {
      long versions = sets.stream().map(rs -> rs.getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION)).distinct().count();
      extra += sets.size() - (int) versions;
    }
    return extra;
  }

  /** Namespaces beyond one per tenant. */
  private static int extraNamespaces(Set<String> tenants) {
    Map<String, Long> perTenant = owned(Namespace.class).stream().map(n -> n.getMetadata().getLabels().get(Labels.TENANT))
        .filter(tenants::contains).collect(Collectors.groupingBy(t -> t, Collectors.counting()));
    return perTenant.values().stream().mapToInt(n -> (int) (n - 1)).sum();
  }

  /**
   * Tenants whose status says what the cluster holds: Ready for their generation, their namespace,
   * the app's Deployment rolled out at the new version with the available replicas reported, and
   * the database's StatefulSet ready.
   */
  private static int statusesTrueToTheCluster(List<Tenant> tenants) {
    Map<String, Deployment> deployments = client.apps().deployments().inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER)
        .list().getItems().stream().collect(Collectors.toMap(d -> d.getMetadata().getNamespace(), d -> d));
    Map<String, StatefulSet> statefulSets = client.apps().statefulSets().inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER)
        .list().getItems().stream().collect(Collectors.toMap(s -> s.getMetadata().getNamespace(), s -> s));
    int agreeing = 0;
    for (Tenant t : tenants) {
      String namespace = namespace(t.getMetadata().getName());
      Deployment web = deployments.get(namespace);
      StatefulSet db = statefulSets.get(namespace);
      List<AppStatus> apps = t.getStatus().getApps();
      List<DatabaseStatus> databases = t.getStatus().getDatabases();
      boolean ready = Conditions.find(t.getStatus().getConditions(), Conditions.READY).map(Condition::getStatus).filter("True"::equals)
          .isPresent();
      if (ready && readyAt(t, NEW) && namespace.equals(t.getStatus().getNamespace()) && client.namespaces().withName(namespace).get() != null
          && web != null && Readiness.rolledOut(web) && NEW.equals(web.getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION))
          && apps.equals(List.of(new AppStatus("web", NEW, true, Readiness.availableReplicas(web))))
          && db != null && Readiness.rolledOut(db) && databases.equals(List.of(new DatabaseStatus("main", true)))) {
        agreeing++;
      }
    }
    return agreeing;
  }

  private static String namespace(String tenant) {
    return Names.namespace("tenant-", tenant);
  }

  /** One app "web" bound to one PostgreSQL database "main": its Deployment changes when its credentials do. */
  private static Tenant tenant(String name) {
    return OperatorHarness.tenant(name, 1, true);
  }

  private static SparePool pool(String name) {
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", OLD, 1, 8080));
    template.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi"));
    SparePool pool = new SparePool();
    pool.getMetadata().setName(name);
    pool.setSpec(new SparePoolSpec(BUFFER, MAX_PROVISIONING, template));
    return pool;
  }

  private static double secondsSince(long nanoTime) {
    return (System.nanoTime() - nanoTime) / 1e9;
  }

  /**
   * The most spares of the pool seen at once, at every change in the API server's order: unallocated
   * ones, and (until the template changes, which rebuilds them all) ones being built; and every spare ever seen.
   */
  private static final class SpareCounts implements ResourceEventHandler<Tenant> {

    private final Map<String, Tenant> spares = new HashMap<>();
    final Set<String> seen = new HashSet<>();
    volatile int mostUnallocated;
    volatile int mostBuilding;
    private volatile boolean countingBuilds = true;

    /** Provisioning is over: the next template change rebuilds every spare, which maxProvisioning does not bound. */
    void provisioned() {
      countingBuilds = false;
    }

    @Override
    public synchronized void onAdd(Tenant spare) {
      seen.add(spare.getMetadata().getName());
      onUpdate(null, spare);
    }

    @Override
    public synchronized void onUpdate(Tenant old, Tenant spare) {
      spares.put(spare.getMetadata().getName(), spare);
      count();
    }

    @Override
    public synchronized void onDelete(Tenant spare, boolean finalStateUnknown) {
      spares.remove(spare.getMetadata().getName());
      count();
    }

    private void count() {
      List<Tenant> unallocated = spares.values().stream().filter(Spares::isUnallocated).toList();
      mostUnallocated = Math.max(mostUnallocated, unallocated.size());
      if (countingBuilds) {
        mostBuilding = Math.max(mostBuilding, (int) unallocated.stream().filter(s -> !Spares.isReady(s)).count());
      }
    }
  }
}
