package io.tenantry.controller.backup;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.ScalableResource;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.controller.resources.Labels;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bound on backups at fleet scale: {@value #TENANTS} tenants, each one PostgreSQL database and
 * no app (the fewest objects that reach Ready), all due at once (a first backup is due as soon as
 * the database is ready), with the cluster allowing {@value #SLOTS}. kwok leaves backup pods
 * Running, so every Job runs until the test, playing the kubelet, ends its pod; each ends hollow
 * (its containers "succeed", nothing ran), which the operator judges BackupNotInStore and which
 * frees the slot as a real backup's commit would.
 *
 * <p>One watch on every backup Job of the cluster counts them at each event, in the API server's
 * order, so the largest count seen is exact, not sampled. The test asserts that exactly
 * {@value #SLOTS} run once the whole fleet is Ready and the rest wait; that each of the first
 * {@value #SINGLE_RELEASES} Jobs released one at a time admits exactly one more; then, to keep
 * the wall time small, it releases every running Job at once, round after round, until each tenant
 * has had its one attempt: the bound holds throughout (the largest count is {@value #SLOTS}), and no
 * tenant is started twice or skipped. The bound is {@value #SLOTS} rather than the default 4: each
 * round frees that many slots before the first tenant woken syncs (a slot woke the same tenant
 * twice, and stayed idle until the next resync, before {@link BackupSlots} kept a freed slot for
 * the tenant it wakes), and a round lasts as long as the Job controller takes to see the pods end
 * and the operator to commit (2 to 4 s), so fewer rounds. The rollout bound is raised so the fleet
 * reaches Ready sooner; it has no part in backups.
 */
@WithCluster(workloads = true)
class BackupSlotsIT {

  private static final int TENANTS = 200;
  private static final int SLOTS = 10;
  private static final int SINGLE_RELEASES = 20;

  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static Path storeRoot;
  private static JobCensus census;
  private static Watch watch;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    storeRoot = Files.createTempDirectory("tenantry-backup-slots-");
    harness = OperatorHarness.withBackups(cluster, OperatorConfig.defaults()
        .with("{templateNamespace: tenantry-templates-backup-slots, maxConcurrentRollouts: 50,"
            + " backups: {maxConcurrent: " + SLOTS + "},"
            + " plans: {standard: {backup: {drillEvery: 0, " + OperatorHarness.backupWindowAway() + "}}}}"), new LocalBackupStore(storeRoot));
    assertThat(backupJobs().list().getItems()).as("backup Jobs left by an earlier class").isEmpty();
    census = new JobCensus();
    watch = backupJobs().watch(census);
  }

  @AfterAll
  static void stop() throws Exception {
    if (watch != null) {
      watch.close();
    }
    if (harness != null) {
      harness.purgeAll(client);
      harness.close();
    }
    if (storeRoot != null) {
      try (Stream<Path> paths = Files.walk(storeRoot)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  @Test
  void aFleetDueAtOnceRunsExactlyMaxConcurrentBackupsAndEachEndAdmitsOneMore() throws Exception {
    long started = System.nanoTime();
    List<String> names = createFleet();
    long ready = System.nanoTime();
    awaitSlotsFull(names);
    long full = System.nanoTime();

    for (int round = 0; round < SINGLE_RELEASES; round++) {
      releaseOneAndAwaitTheNext();
    }
    long singles = System.nanoTime();
    int batches = releaseTheRestInBatches();
    long done = System.nanoTime();

    assertEveryTenantAttemptedOnce(names);
    System.out.printf("backup slots: %d tenants Ready in %d s (%d ms per tenant), %d Jobs running %d s later;"
        + " %d single releases in %d s; %d batches in %d s; most backup Jobs at once: %d (maxConcurrent %d)%n",
        TENANTS, seconds(ready - started), (ready - started) / 1_000_000 / TENANTS, SLOTS, seconds(full - ready),
        SINGLE_RELEASES, seconds(singles - full), batches, seconds(done - singles), census.most(), SLOTS);
    assertThat(census.most()).as("most backup Jobs in the cluster at once").isEqualTo(SLOTS);
  }

  /** Creates the fleet and waits until every tenant is Ready: each database is then due. */
  private static List<String> createFleet() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < TENANTS; i++) {
      String name = uniqueName("slots");
      Tenant tenant = OperatorHarness.tenant(name, 0, true);
      tenant.getSpec().getApps().clear();
      client.resources(Tenant.class).resource(tenant).create();
      names.add(name);
    }
    Set<String> fleet = Set.copyOf(names);
    await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1)).until(() -> client.resources(Tenant.class)
        .list().getItems().stream().filter(t -> fleet.contains(t.getMetadata().getName()))
        .filter(t -> t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready).count() == TENANTS);
    return names;
  }

  /** Exactly {@value #SLOTS} Jobs run, every other tenant waits with no attempt, and the operator is idle. */
  private static void awaitSlotsFull(List<String> names) throws InterruptedException {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> census.live().size() == SLOTS);
    harness.awaitIdle();
    Thread.sleep(1000);
    assertThat(census.live()).as("backup Jobs once the fleet is due").hasSize(SLOTS);
    assertThat(census.started()).hasSize(SLOTS);
    Map<String, BackupRecord> attempts = attempts(names);
    assertThat(attempts.values().stream().filter(a -> a != null).count()).as("tenants with an attempt").isEqualTo(SLOTS);
    assertThat(attempts.entrySet().stream().filter(e -> e.getValue() != null).map(e -> namespace(e.getKey())))
        .containsExactlyInAnyOrderElementsOf(census.live().stream().map(JobCensus::namespaceOf).toList());
  }

  /** Ends the oldest running Job's pod: its slot goes to exactly one waiting tenant, and the count is back to the bound. */
  private static void releaseOneAndAwaitTheNext() throws InterruptedException {
    List<String> before = census.started();
    String oldest = census.live().get(0);
    end(oldest);
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
        .until(() -> !census.live().contains(oldest) && census.live().size() == SLOTS);
    harness.awaitIdle();
    Thread.sleep(200);
    List<String> after = census.started();
    assertThat(after).as("Jobs started after %s ended", oldest).hasSize(before.size() + 1);
    assertThat(census.live()).as("backup Jobs running").hasSize(SLOTS).doesNotContain(oldest)
        .contains(after.get(after.size() - 1));
  }

  /**
   * Ends every running Job at once, round after round, until each tenant has had its attempt: each
   * round, the slots go back to the bound (or to what still waits). The number of rounds.
   */
  private static int releaseTheRestInBatches() {
    int rounds = 0;
    while (!census.live().isEmpty()) {
      List<String> running = census.live();
      running.forEach(BackupSlotsIT::end);
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> {
        List<String> live = census.live();
        int waiting = TENANTS - census.started().size();
        return live.stream().noneMatch(running::contains) && (live.size() == SLOTS || waiting == 0);
      });
      rounds++;
    }
    return rounds;
  }

  /** Every tenant had exactly one backup Job, judged BackupNotInStore (it ran nothing), and none is left. */
  private static void assertEveryTenantAttemptedOnce(List<String> names) {
    assertThat(census.started()).as("backup Jobs started").hasSize(TENANTS);
    assertThat(census.started().stream().map(JobCensus::namespaceOf).collect(Collectors.toSet()))
        .containsExactlyInAnyOrderElementsOf(names.stream().map(BackupSlotsIT::namespace).toList());
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(attempts(names).values()).allMatch(a -> a != null && "BackupNotInStore".equals(a.getReason())));
    assertThat(census.live()).isEmpty();
    assertThat(census.closedBy()).as("the watch on backup Jobs ended").isNull();
  }

  /** Ends the pod of Job {@code namespace/name} as kwok would: every container "succeeds", and nothing ran. */
  private static void end(String job) {
    String namespace = JobCensus.namespaceOf(job);
    Kubelet.terminate(client, Kubelet.awaitRunningPod(client, namespace, job.substring(namespace.length() + 1)),
        List.of(new Kubelet.Ended(BackupJob.DUMP, 0, "", ""), new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));
  }

  /** Each tenant's last backup attempt (null: none yet), from one list. */
  private static Map<String, BackupRecord> attempts(List<String> names) {
    Set<String> fleet = Set.copyOf(names);
    Map<String, BackupRecord> attempts = new LinkedHashMap<>();
    for (Tenant t : client.resources(Tenant.class).list().getItems()) {
      if (fleet.contains(t.getMetadata().getName())) {
        attempts.put(t.getMetadata().getName(), t.getStatus() == null || t.getStatus().getDatabases().isEmpty()
            || t.getStatus().getDatabases().get(0).getBackup() == null ? null
            : t.getStatus().getDatabases().get(0).getBackup().getLastAttempt());
      }
    }
    return attempts;
  }

  private static FilterWatchListDeletable<Job, JobList, ScalableResource<Job>> backupJobs() {
    return client.batch().v1().jobs().inAnyNamespace().withLabel(Labels.COMPONENT, Labels.COMPONENT_BACKUP);
  }

  private static String namespace(String name) {
    return "tenant-" + name;
  }

  private static long seconds(long nanos) {
    return Math.round(nanos / 1e9);
  }

  /**
   * The backup Jobs in the cluster, from one watch: events arrive in the API server's order, so the
   * count after each is the count the cluster held at that revision. A Job counts from its creation
   * until it is gone, deleting included. Keys are {@code namespace/name}.
   */
  private static final class JobCensus implements Watcher<Job> {
    private final List<String> live = new ArrayList<>();
    private final List<String> started = new ArrayList<>();
    private int most;
    private WatcherException closedBy;

    @Override
    public synchronized void eventReceived(Action action, Job job) {
      String key = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
      if (action == Action.DELETED) {
        live.remove(key);
      } else if (!live.contains(key)) {
        live.add(key);
        started.add(key);
        most = Math.max(most, live.size());
      }
    }

    @Override
    public synchronized void onClose(WatcherException cause) {
      closedBy = cause;
    }

    /** Running Jobs, oldest first. */
    synchronized List<String> live() {
      return List.copyOf(live);
    }

    /** Every Job seen created, in order. */
    synchronized List<String> started() {
      return List.copyOf(started);
    }

    synchronized int most() {
      return most;
    }

    synchronized WatcherException closedBy() {
      return closedBy;
    }

    static String namespaceOf(String key) {
      return key.substring(0, key.indexOf('/'));
    }
  }
}
