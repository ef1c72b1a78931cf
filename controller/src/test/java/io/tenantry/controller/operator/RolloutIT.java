package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setAppVersion;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.rollout.Readiness;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Health-gated syncs with maxConcurrentRollouts=5: a wave of 30 version changes never has more
 * than 5 tenants rolling out at once, every one finishes, converged tenants stay free of API
 * calls meanwhile, and a rollout that cannot finish ends Degraded after its deadline.
 */
@WithCluster(workloads = true)
class RolloutIT {

  private static final int SLOTS = 5;
  private static final int DEADLINE_SECONDS = 30;
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    OperatorConfig config = OperatorConfig.defaults();
    config = config.with("{maxConcurrentRollouts: %d, rolloutDeadlineSeconds: %d}".formatted(SLOTS, DEADLINE_SECONDS));
    config = OperatorHarness.withTightPlan(config, 1);
    harness = new OperatorHarness(cluster, config);
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void aWaveOfThirtyVersionChangesNeverRollsOutMoreThanFiveAtOnce() throws Exception {
    List<String> wave = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String name = uniqueName("wave");
      wave.add(name);
      client.resources(Tenant.class).resource(tenant(name, 1, false)).create();
    }
    String bystander = uniqueName("bystander");
    client.resources(Tenant.class).resource(tenant(bystander, 1, false)).create();
    for (String name : wave) {
      awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));
    }
    awaitPhase(client, bystander, TenantPhase.Ready, Duration.ofMinutes(1));
    harness.awaitIdle();

    // One watch over every tenant Deployment: events arrive in the API server's order, so the
    // count of tenants with un-rolled-out Deployments is exact at every event.
    Set<String> rollingOut = ConcurrentHashMap.newKeySet();
    AtomicInteger most = new AtomicInteger();
    Set<String> waveSet = Set.copyOf(wave);
    try (Watch watch = client.apps().deployments().inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER)
        .watch(new Watcher<>() {
          @Override
          public void eventReceived(Action action, Deployment d) {
            String tenant = d.getMetadata().getLabels().get(Labels.TENANT);
            if (!waveSet.contains(tenant)) {
              return;
            }
            if (action != Action.DELETED && !Readiness.rolledOut(d)) {
              rollingOut.add(tenant);
            } else {
              rollingOut.remove(tenant);
            }
            most.accumulateAndGet(rollingOut.size(), Math::max);
          }

          @Override
          public void onClose(WatcherException cause) {
          }
        })) {
      wave.parallelStream().forEach(name -> setAppVersion(client, name, "2.0.0"));

      // While the wave rolls, a converged tenant's resync sends nothing.
      long before = requestsAbout(bystander);
      for (int i = 0; i < 5; i++) {
        harness.parts.queue().add(bystander);
        Thread.sleep(300);
      }
      assertThat(harness.parts.queue().len()).isLessThan(31);
      long bystanderRequests = requestsAbout(bystander) - before;

      await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> wave.stream().allMatch(n -> {
        Tenant t = client.resources(Tenant.class).withName(n).get();
        return t.getStatus().getPhase() == TenantPhase.Ready && "web=2.0.0".equals(t.getStatus().getVersions());
      }));
      System.out.printf("most tenants rolling out at once: %d (slots %d)%n", most.get(), SLOTS);
      assertThat(most.get()).isBetween(2, SLOTS);
      assertThat(bystanderRequests).as("requests about the converged tenant during the wave").isZero();
    }
  }

  @Test
  void aRolloutThatNeverBecomesReadyEndsDegradedAfterItsDeadlineAndStaysSoAcrossARestart() throws Exception {
    // The "tight" plan admits one pod: the new version's pod can never start next to the old one.
    String stuck = uniqueName("stuck");
    Tenant tenant = tenant(stuck, 1, false);
    tenant.getSpec().setPlan("tight");
    client.resources(Tenant.class).resource(tenant).create();
    String healthy = uniqueName("healthy");
    client.resources(Tenant.class).resource(tenant(healthy, 1, false)).create();
    awaitPhase(client, stuck, TenantPhase.Ready, Duration.ofMinutes(2));
    awaitPhase(client, healthy, TenantPhase.Ready, Duration.ofMinutes(2));

    setAppVersion(client, stuck, "2.0.0");
    setAppVersion(client, healthy, "2.0.0");
    Tenant degraded = awaitPhase(client, stuck, TenantPhase.Degraded, Duration.ofSeconds(DEADLINE_SECONDS * 3));
    assertThat(degraded.getStatus().getConditions().get(0).getReason()).isEqualTo("RolloutTimedOut");
    assertThat(degraded.getStatus().getConditions().get(0).getMessage())
        .isEqualTo("not rolled out within " + DEADLINE_SECONDS + "s: waiting for apps web to roll out");
    assertThat(degraded.getStatus().getVersions()).isEqualTo("web=1.0.0");
    Tenant done = client.resources(Tenant.class).withName(healthy).get();
    assertThat(done.getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
    assertThat(done.getStatus().getVersions()).isEqualTo("web=2.0.0");
    assertThat(harness.parts.registry().get("tenantry.rollout.timeouts").counter().count()).isGreaterThanOrEqualTo(1);
    assertThat(harness.parts.registry().get("tenantry.rollouts.in.flight").gauge().value()).isZero();

    // A restarted operator has no memory of the deadline; the tenant's status has it.
    harness.restart();
    harness.parts.queue().add(stuck);
    harness.awaitIdle();
    Tenant restarted = client.resources(Tenant.class).withName(stuck).get();
    assertThat(restarted.getStatus().getPhase()).as("no second deadline to wait out").isEqualTo(TenantPhase.Degraded);
    assertThat(restarted.getStatus().getConditions().get(0).getReason()).isEqualTo("RolloutTimedOut");
    assertThat(harness.parts.registry().get("tenantry.rollouts.in.flight").gauge().value()).isZero();
  }

  private static long requestsAbout(String tenant) {
    return harness.requests.all().stream().filter(r -> r.contains(tenant)).count();
  }
}
