package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.setAppVersion;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
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
import io.tenantry.controller.operator.AllocationCalls.Answer;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.rollout.Readiness;
import io.tenantry.controller.status.Conditions;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator process SIGKILLed at random moments, and restarted each time, while tenants are
 * provisioned (created in waves; some of them spares of a SparePool, some of those bound to
 * customers meanwhile by signups through the operator's allocation API) and then while an app
 * version rolls across all of them (in waves too, as a fleet rollout does, and on the pool's
 * template). Every tenant converges and the kills leave no trace: no owned object recreated or
 * lost (every owned object watched from before the first kill) nor added by the rollout, no
 * ReplicaSet beyond one per version (a Deployment changed by nothing but the rollout), no database
 * password ever changed once written, the pool never beyond its buffer nor building more than
 * maxProvisioning at once, and every status agreeing with the cluster. Every signup, retried with
 * its request id through the kills, gets exactly one tenant of its own, which holds its customer.
 *
 * <p>Sizes: {@code -Dtenantry.faults.tenants} (default 40) and {@code -Dtenantry.faults.kills}
 * (default 5), on a simulated cluster of the class's own with a node per 40 tenants;
 * {@code tools/fault-suite.sh} runs it at 200 and 20. The kill delays come from a seed that is
 * printed; {@code -Dtenantry.faults.seed} replays them (and the signups' pauses, though not the
 * moments the signups' calls land). The allocation records are kept in a Datastore emulator.
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
  private static final String TOKEN = "operator-kill-it-token";
  /** What a 503 for want of a Ready spare tells a signup to wait: a spare builds in seconds on the simulated cluster. */
  private static final int RETRY_AFTER_SECONDS = 2;
  /** How long a signup waits before calling again when the process is down (connection refused) or died under its call. */
  private static final int RECONNECT_MILLIS = 250;

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static Path workDir;
  private static SecretStore store;
  private static DatastoreEmulator datastore;
  private static int incarnations;
  private static OperatorProcess operator;
  private static int probePort;
  /** The allocation API's port: the same for every process, as a Service in front of the operator would be. */
  private static int apiPort;

  @BeforeAll
  static void start() throws IOException, InterruptedException {
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
    // The allocation API records allocations in the fleet records; they outlive every process.
    datastore = DatastoreEmulator.start();
    Files.writeString(workDir.resolve("token"), TOKEN);
    apiPort = OperatorProcess.freePort();
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
      if (datastore != null) {
        datastore.close();
      }
    }
  }

  @Test
  void killedAtRandomWhileProvisioningAndRollingOutEveryTenantConvergesAndNothingIsDuplicatedOrRegenerated() throws Exception {
    System.out.printf("[reliability] operator kills: %d tenants (%d created, %d spares bound by signups through the allocation API,"
        + " a pool of %d spares building at most %d), %d kills (seed %d)%n", TENANTS, DIRECT, BOUND, BUFFER, MAX_PROVISIONING, KILLS,
        SEED);
    String pool = uniqueName("kill-pool");
    List<String> direct = new ArrayList<>();
    for (int i = 0; i < DIRECT; i++) {
      direct.add(uniqueName("kill"));
    }
    SpareCounts spares = new SpareCounts();
    SharedIndexInformer<Tenant> sampler = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).inform(spares, 0);
    // Every owned object, watched from before the first process starts: the baseline of the first kill.
    Census census = Census.start();
    try (Signups signups = new Signups(pool, BOUND)) {
      startOperator();

      // Phase 1: tenants created in waves, one before each kill, and signups arriving in waves too,
      // each retried through the kills until it is answered.
      client.resources(SparePool.class).resource(pool(pool)).create();
      int waves = waves(KILLS / 2);
      Kills provisioningKills = killAtRandom(KILLS / 2, i -> {
        wave(direct, i, waves).forEach(name -> client.resources(Tenant.class).resource(tenant(name)).create());
        signups.release(wave(signups.ids(), i, waves));
      }, () -> converged(direct, pool, OLD));
      signups.awaitAnswered(CONVERGENCE);
      await().atMost(CONVERGENCE).pollInterval(Duration.ofSeconds(2)).until(() -> converged(direct, pool, OLD));
      double provisioned = secondsSince(provisioningKills.last());
      spares.provisioned();
      List<Tenant> tenants = tenants(direct, pool);
      // What the rollout must not add to.
      Set<String> provisionedObjects = ownedUids(names(tenants)).keySet();

      // Phase 2: the version rolls across the spares (the pool's template) and, in waves as a fleet
      // rollout would, across the other tenants, one wave before each kill.
      client.resources(SparePool.class).withName(pool).patch(PatchContext.of(PatchType.JSON),
          "[{\"op\":\"replace\",\"path\":\"/spec/template/apps/0/version\",\"value\":\"" + NEW + "\"}]");
      List<String> active = tenants.stream().filter(t -> t.getSpec().getState() == TenantState.Active)
          .map(t -> t.getMetadata().getName()).toList();
      int rolloutWaves = waves(KILLS - KILLS / 2);
      Kills rolloutKills = killAtRandom(KILLS - KILLS / 2,
          i -> wave(active, i, rolloutWaves).forEach(name -> setAppVersion(client, name, NEW)), () -> converged(direct, pool, NEW));
      await().atMost(CONVERGENCE).pollInterval(Duration.ofSeconds(2)).until(() -> converged(direct, pool, NEW));
      System.out.printf("[reliability] operator kills: provisioning converged %.0f s after its last kill (%d kills, %d before it"
          + " had converged), the rollout to %s %.0f s after its last kill (%d kills, %d before it had converged)%n", provisioned,
          KILLS / 2, provisioningKills.beforeConverged(), NEW, secondsSince(rolloutKills.last()), KILLS - KILLS / 2,
          rolloutKills.beforeConverged());
      List<Tenant> after = tenants(direct, pool);
      // Every figure printed before any assertion fails.
      SoftAssertions softly = new SoftAssertions();
      assertSignups(softly, signups, after);
      assertNoTrace(softly, census, provisionedObjects, after, spares);
      softly.assertAll();
    } finally {
      sampler.close();
      census.close();
    }
  }

  /**
   * Prints, and asserts in {@code softly}, what the kills left behind: nothing. Recreated and lost
   * objects, and changed passwords, by the census from before the first kill; objects added by the
   * rollout, against {@code provisionedObjects} (what the tenants owned once provisioned).
   */
  private static void assertNoTrace(SoftAssertions softly, Census census, Set<String> provisionedObjects, List<Tenant> after,
      SpareCounts spares) {
    Set<String> names = names(after);
    softly.assertThat(census.awaitCaughtUp(names)).as("the census shows what the cluster holds").isTrue();
    int recreated = census.recreated(names);
    int lost = census.lost(names);
    int added = (int) ownedUids(names).keySet().stream().filter(k -> !provisionedObjects.contains(k)).count();
    int extraReplicaSets = extraReplicaSets(names);
    int extraNamespaces = extraNamespaces(names);
    int duplicates = recreated + added + extraReplicaSets + extraNamespaces;
    Map<String, String> passwords = passwords(names);
    int changed = (int) names.stream().filter(n -> passwords.get(n) == null || !Set.of(passwords.get(n)).equals(census.passwords(n)))
        .count();
    int unlikeStore = unlikeStore(names);
    int statusesTrue = statusesTrueToTheCluster(after);

    System.out.printf("[reliability] operator kills: %d duplicate objects (%d recreated, %d added by the rollout, %d ReplicaSets beyond"
        + " one per version, %d extra namespaces) among %d owned objects, %d lost; recreated and lost counted from before the first"
        + " kill (every uid of every object of the %d owned kinds, watched); %d of %d database passwords changed since first written,"
        + " %d unlike the store%n", duplicates, recreated, added, extraReplicaSets, extraNamespaces, census.objects(names), lost,
        InformerCache.OWNED_KINDS.size(), changed, names.size(), unlikeStore);
    System.out.printf("[reliability] operator kills: spares max %d of max %d, at most %d building of max %d, %d created for %d needed;"
        + " %d/%d statuses true to the cluster%n", spares.mostUnallocated, BUFFER, spares.mostBuilding, MAX_PROVISIONING,
        spares.seen.size(), BUFFER + BOUND, statusesTrue, after.size());

    softly.assertThat(after).as("tenants").hasSize(TENANTS);
    softly.assertThat(duplicates).as("duplicate objects").isZero();
    softly.assertThat(lost).as("owned objects lost").isZero();
    softly.assertThat(changed).as("database passwords changed").isZero();
    softly.assertThat(unlikeStore).as("credentials Secrets unlike the store").isZero();
    softly.assertThat(spares.mostUnallocated).as("most unallocated spares at once").isEqualTo(BUFFER);
    softly.assertThat(spares.mostBuilding).as("most spares building at once").isBetween(1, MAX_PROVISIONING);
    softly.assertThat(spares.seen).as("spares the pool created").hasSize(BUFFER + BOUND);
    softly.assertThat(statusesTrue).as("statuses true to the cluster").isEqualTo(TENANTS);
  }

  /**
   * Prints, and asserts in {@code softly}, what the signups got: each request id exactly one
   * tenant, the one its 200 named and the one the API still names for it after the kills; no tenant
   * for two request ids; each bound tenant holding the customer its signup sent.
   */
  private static void assertSignups(SoftAssertions softly, Signups signups, List<Tenant> after) {
    List<Tenant> bound = after.stream().filter(t -> t.getSpec().getState() == TenantState.Active && Spares.pool(t) != null).toList();
    Map<String, List<String>> byRequest = bound.stream().collect(Collectors.groupingBy(
        t -> Objects.requireNonNullElse(requestId(t), ""),
        Collectors.mapping(t -> t.getMetadata().getName(), Collectors.toList())));
    Map<String, String> answered = signups.answered();
    int oneTenant = (int) signups.ids().stream().filter(id -> answered.get(id) != null
        && List.of(answered.get(id)).equals(byRequest.get(id)) && answered.get(id).equals(signups.lookUp(id))).count();
    int givenTwice = (int) answered.values().stream().collect(Collectors.groupingBy(t -> t, Collectors.counting())).values().stream()
        .filter(n -> n > 1).count();
    int holdingCustomer = (int) bound.stream().filter(t -> {
      String id = requestId(t);
      return id != null && Signups.organization(id).equals(t.getSpec().getOrganization())
          && Signups.email(id).equals(t.getSpec().getEmail());
    }).count();

    System.out.printf("[reliability] operator kills: %d signups through the allocation API during the provisioning kills, each retried"
        + " with its request id until answered 200: %d/%d request ids with exactly one tenant (the one answered, still named by"
        + " the API after the kills), %d tenants given to two request ids, %d/%d bound tenants holding their customer; %d calls,"
        + " %d retries: %d answered 503 with Retry-After, %d refused (no process), %d cut by a kill, %d other 5xx%n",
        signups.ids().size(), oneTenant, signups.ids().size(), givenTwice, holdingCustomer, bound.size(), signups.calls.get(),
        signups.calls.get() - answered.size(), signups.unavailable.get(), signups.refused.get(), signups.cut.get(),
        signups.errors.get());

    softly.assertThat(oneTenant).as("request ids with exactly one tenant").isEqualTo(BOUND);
    softly.assertThat(givenTwice).as("tenants given to two request ids").isZero();
    softly.assertThat(bound).as("spares bound").hasSize(BOUND);
    softly.assertThat(holdingCustomer).as("bound tenants holding their customer").isEqualTo(BOUND);
  }

  /** The request id the allocation API bound {@code tenant} for; null: none. */
  private static String requestId(Tenant tenant) {
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(WellKnown.ALLOCATION_REQUEST);
  }

  /** The number of waves a phase of {@code kills} kills is cut into: one before each kill, one when there is none. */
  private static int waves(int kills) {
    return Math.max(1, kills);
  }

  /** The {@code i}th of {@code waves} parts of {@code items}. */
  private static <T> List<T> wave(List<T> items, int i, int waves) {
    return items.subList(items.size() * i / waves, items.size() * (i + 1) / waves);
  }

  /**
   * Kills the running operator {@code kills} times, each a random time (up to {@link #MAX_LIFE_MILLIS})
   * after it became ready, and starts the next one at once, as a Deployment would. Before each kill,
   * {@code wave} is handed the next wave's index ({@link #waves}: one wave when there is no kill).
   */
  private static Kills killAtRandom(int kills, IntConsumer wave, BooleanSupplier converged) throws Exception {
    long last = System.nanoTime();
    int beforeConverged = 0;
    for (int i = 0; i < waves(kills); i++) {
      wave.accept(i);
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
        httpPort: %d
        probePort: %d
        secretStore:
          location: file:%s
        leaderElection:
          enabled: false
        fleet:
          datastoreProjectId: %s
          datastoreNamespace: operator-kill
          clusterName: local
        allocation:
          enabled: true
          tokenFile: %s
          retryAfterSeconds: %d
        """.formatted(apiPort, probePort, workDir.resolve("store"), DatastoreEmulator.PROJECT_ID, workDir.resolve("token"),
        RETRY_AFTER_SECONDS), Map.of("DATASTORE_EMULATOR_HOST", "localhost:" + datastore.port()));
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
    return ownedResources(kind).list().getItems();
  }

  /** The objects of {@code kind} the operator labels as its own, in every namespace. */
  private static <T extends HasMetadata> FilterWatchListDeletable<T, KubernetesResourceList<T>, Resource<T>> ownedResources(Class<T> kind) {
    return kind == Namespace.class ? client.resources(kind).withLabel(Labels.MANAGED_BY, Labels.MANAGER)
        : client.resources(kind).inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER);
  }

  private static Set<String> names(List<Tenant> tenants) {
    return tenants.stream().map(t -> t.getMetadata().getName()).collect(Collectors.toSet());
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

  /**
   * Every object the operator owns (every kind it owns, labelled as its own), watched from before
   * the first process starts: each object's uids ever seen, by kind, namespace and name (two: it
   * was recreated), the uid of those that exist (one deleted and never back was lost), and every
   * password each tenant's credentials Secret ever held. Informers: a watch that expires is listed
   * again, and an object recreated meanwhile shows as an update with another uid.
   */
  private static final class Census implements ResourceEventHandler<HasMetadata>, AutoCloseable {

    private final Map<String, Set<String>> uids = new HashMap<>();
    private final Map<String, String> existing = new HashMap<>();
    private final Map<String, String> tenantOf = new HashMap<>();
    private final Map<String, Set<String>> passwords = new HashMap<>();
    private final List<SharedIndexInformer<? extends HasMetadata>> informers = new ArrayList<>();

    /** Starts watching; returns once every kind is listed. */
    static Census start() {
      Census census = new Census();
      for (Class<? extends HasMetadata> kind : InformerCache.OWNED_KINDS) {
        census.informers.add(ownedResources(kind).inform(census, 0));
      }
      return census;
    }

    @Override
    public synchronized void onAdd(HasMetadata o) {
      String key = key(o);
      uids.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(o.getMetadata().getUid());
      existing.put(key, o.getMetadata().getUid());
      String tenant = o.getMetadata().getLabels().get(Labels.TENANT);
      tenantOf.put(key, tenant);
      if (o instanceof Secret secret && Names.credentials("main").equals(secret.getMetadata().getName()) && secret.getData() != null
          && secret.getData().get(DatabaseModel.PASSWORD_KEY) != null) {
        passwords.computeIfAbsent(tenant, t -> new HashSet<>()).add(sha256(secret.getData().get(DatabaseModel.PASSWORD_KEY)));
      }
    }

    @Override
    public void onUpdate(HasMetadata old, HasMetadata o) {
      onAdd(o);
    }

    @Override
    public synchronized void onDelete(HasMetadata o, boolean finalStateUnknown) {
      existing.remove(key(o), o.getMetadata().getUid());
    }

    private static String key(HasMetadata o) {
      return o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    /** Waits until the census shows what the cluster holds for {@code tenants} (it has every event up to now); false: not in a minute. */
    boolean awaitCaughtUp(Set<String> tenants) {
      try {
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> existing(tenants).equals(ownedUids(tenants)));
        return true;
      } catch (ConditionTimeoutException e) {
        return false;
      }
    }

    private synchronized Map<String, String> existing(Set<String> tenants) {
      Map<String, String> now = new TreeMap<>();
      existing.forEach((key, uid) -> {
        if (tenants.contains(tenantOf.get(key))) {
          now.put(key, uid);
        }
      });
      return now;
    }

    /** The owned objects of {@code tenants} ever seen. */
    synchronized int objects(Set<String> tenants) {
      return (int) uids.keySet().stream().filter(k -> tenants.contains(tenantOf.get(k))).count();
    }

    /** Objects of {@code tenants} seen with more than one uid: deleted and created again. */
    synchronized int recreated(Set<String> tenants) {
      return (int) uids.entrySet().stream().filter(e -> tenants.contains(tenantOf.get(e.getKey())) && e.getValue().size() > 1).count();
    }

    /** Objects of {@code tenants} seen once and deleted since, never created again. */
    synchronized int lost(Set<String> tenants) {
      return (int) uids.keySet().stream().filter(k -> tenants.contains(tenantOf.get(k)) && !existing.containsKey(k)).count();
    }

    /** Digests of every password {@code tenant}'s credentials Secret held. */
    synchronized Set<String> passwords(String tenant) {
      return Set.copyOf(passwords.getOrDefault(tenant, Set.of()));
    }

    @Override
    public void close() {
      informers.forEach(SharedIndexInformer::close);
    }
  }

  /**
   * A signup service calling the operator's allocation API from a thread of its own: one signup
   * after another as {@link #release}d, each after a random pause (signups arrive when they will),
   * each call once the pool has Ready spares.
   * Each has its own request id and is called again with it until answered 200: after the
   * Retry-After of a 503, and shortly after a connection refused (the process is down) or cut
   * (killed under the call). Any other answer fails it.
   */
  private static final class Signups implements AutoCloseable {

    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger unavailable = new AtomicInteger();
    final AtomicInteger refused = new AtomicInteger();
    final AtomicInteger cut = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();
    private final AllocationCalls api = new AllocationCalls(apiPort, TOKEN);
    private final String pool;
    private final List<String> ids = new ArrayList<>();
    private final BlockingQueue<String> released = new LinkedBlockingQueue<>();
    /** The tenant each request id's 200 named. */
    private final Map<String, String> answered = new ConcurrentHashMap<>();
    // Its own: the kill delays replay from the seed whatever this thread does meanwhile.
    private final Random random = new Random(SEED + 1);
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "signups");
      t.setDaemon(true);
      return t;
    });
    private final Future<?> running;

    Signups(String pool, int count) {
      this.pool = pool;
      for (int i = 0; i < count; i++) {
        ids.add("signup-" + pool + "-" + i);
      }
      running = thread.submit(() -> {
        for (int i = 0; i < count; i++) {
          signUp(released.take());
        }
        return null;
      });
    }

    static String organization(String requestId) {
      return "Org " + requestId;
    }

    static String email(String requestId) {
      return requestId + "@example.com";
    }

    List<String> ids() {
      return ids;
    }

    /** Lets these signups happen. */
    void release(List<String> requestIds) {
      released.addAll(requestIds);
    }

    Map<String, String> answered() {
      return Map.copyOf(answered);
    }

    /** Waits until every signup is answered; throws what failed one. */
    void awaitAnswered(Duration timeout) throws Exception {
      running.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void signUp(String id) throws InterruptedException {
      // About a process's life: a signup lands anywhere between a start and a kill, or while none runs.
      Thread.sleep(random.nextInt(MAX_LIFE_MILLIS + 1));
      int callsBefore = calls.get();
      while (true) {
        // Not while the pool is empty, unlike a real service: a signup that finds no Ready spare makes
        // the pool surge to buffer + maxProvisioning spares for ten minutes, which the pool's figures
        // do not allow for. Two in the API server leave one in the operator's cache, however late it is.
        await().atMost(CONVERGENCE).pollInterval(Duration.ofMillis(RECONNECT_MILLIS))
            .until(() -> OperatorHarness.readySpares(client, pool).size() >= 2);
        calls.incrementAndGet();
        Answer answer;
        try {
          answer = api.allocate(id, organization(id), email(id), pool);
        } catch (UncheckedIOException e) {
          (e.getCause() instanceof ConnectException ? refused : cut).incrementAndGet();
          Thread.sleep(RECONNECT_MILLIS);
          continue;
        }
        if (answer.status() == 200) {
          answered.put(id, answer.tenant());
          System.out.printf("signup %s: tenant %s after %d calls%n", id, answer.tenant(), calls.get() - callsBefore);
          return;
        } else if (answer.status() == 503) {
          unavailable.incrementAndGet();
          Thread.sleep(1000L * (answer.retryAfter() == null ? 1 : Long.parseLong(answer.retryAfter().strip())));
        } else if (answer.status() >= 500) {
          errors.incrementAndGet();
          Thread.sleep(1000);
        } else {
          throw new IllegalStateException("signup " + id + " answered " + answer.status() + ": " + answer.body());
        }
      }
    }

    /**
     * The tenant the API names for {@code requestId} now (GET), or null (404, or no answer in a
     * minute): asked again while the last process starts (connection refused) or answers 503.
     */
    String lookUp(String requestId) {
      HttpRequest get = HttpRequest.newBuilder(URI.create(api.uri() + "/" + URLEncoder.encode(requestId, StandardCharsets.UTF_8)))
          .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + TOKEN).GET().build();
      try {
        Answer answer = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(RECONNECT_MILLIS)).ignoreExceptions()
            .until(() -> api.send(get), a -> a.status() != 503);
        return answer.status() == 200 ? answer.tenant() : null;
      } catch (ConditionTimeoutException e) {
        return null;
      }
    }

    @Override
    public void close() {
      thread.shutdownNow();
    }
  }
}
