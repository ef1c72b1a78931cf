package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setAppVersion;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AutoscalingSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.autoscaling.Autoscaling;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.status.Conditions;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Autoscaled apps on the simulated cluster, whose kube-controller-manager runs the HPA controller
 * (every 2 s here, tools/kwok-cluster.sh). There is no metrics server: the HPA applies its bounds
 * and otherwise leaves the replicas where they are, so every change of replicas below is the HPA's
 * bounds, the test's own scaling, or the operator's.
 */
@WithCluster(workloads = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AutoscalingIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  /** A few HPA syncs: long enough for it to act on what it sees. */
  private static final Duration HPA_SYNCS = Duration.ofSeconds(6);

  private static TestCluster cluster;
  private static OperatorConfig config;
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster testCluster, KubernetesClient kubernetesClient) throws Exception {
    cluster = testCluster;
    client = kubernetesClient;
    Plan standard = OperatorConfig.defaults().plans().get("standard");
    config = OperatorConfig.defaults().with(Serialization.asJson(
        Map.of("plans", Map.of("standard", standard, "small", standard.withMaxReplicasPerApp(3)))));
    harness = new OperatorHarness(cluster, config);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  void anAutoscaledAppIsRaisedToItsFloorAndScaledByHandCostsTheOperatorNoWriteThroughResyncsAndARoll() throws Exception {
    String name = uniqueName("scaled");
    client.resources(Tenant.class).resource(autoscaled(name, 2, 6)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    await().atMost(Duration.ofSeconds(30)).until(() -> replicas(name) == 2);
    Tenant tenant = awaitStatusReplicas(name, "web=2 (2-6)");
    assertThat(Conditions.find(tenant.getStatus().getConditions(), Conditions.AUTOSCALED)).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("AsAsked");
    });
    assertThat(autoscaler(name).getMetadata().getLabels()).containsEntry(Labels.MANAGED_BY, Labels.MANAGER);

    client.apps().deployments().inNamespace(namespace(name)).withName("app-web").scale(5);
    int before = deploymentWrites(name);
    for (int resync = 0; resync < 6; resync++) { // 60 s, a forced resync every 10 s
      harness.parts.queue().add(name);
      Thread.sleep(10_000);
      assertThat(replicas(name)).as("after %d s", (resync + 1) * 10).isEqualTo(5);
    }
    assertThat(deploymentWrites(name) - before).as("operator writes to the Deployment").isZero();
    awaitStatusReplicas(name, "web=5 (2-6)");

    List<Integer> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = watchReplicas(name, seen::add)) {
      setAppVersion(client, name, "2.0.0");
      await().atMost(CONVERGE).until(() -> "2.0.0".equals(client.apps().deployments().inNamespace(namespace(name))
          .withName("app-web").get().getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION)));
      awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    }
    assertThat(seen).as("spec.replicas through the roll").isNotEmpty().containsOnly(5);
  }

  @Test
  void fixedReplicasBecomeAutoscaledWithoutADipWhereAPlainApplyWithoutThemDropsToOne() throws Exception {
    String name = uniqueName("handover");
    client.resources(Tenant.class).resource(tenant(name, 4, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);

    List<Integer> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = watchReplicas(name, seen::add)) {
      client.resources(Tenant.class).withName(name).edit(t -> {
        t.getSpec().getApps().get(0).setReplicas(null);
        t.getSpec().getApps().get(0).setAutoscaling(new AutoscalingSpec(2, 6, 80));
        return t;
      });
      await().atMost(CONVERGE).until(() -> autoscaler(name) != null);
      Thread.sleep(HPA_SYNCS.toMillis());
    }
    assertThat(seen).as("spec.replicas from the switch on").isNotEmpty().allMatch(r -> r >= 4);
    assertThat(replicas(name)).isEqualTo(4);

    // The control: the same Deployment's replicas dropped by their only owner's next apply.
    String control = "control-" + name;
    Deployment fixed = new DeploymentBuilder().withNewMetadata().withName(control).withNamespace("default").endMetadata()
        .withNewSpec().withReplicas(4).withNewSelector().addToMatchLabels("app", control).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", control).endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.example.com/app:1").endContainer().endSpec()
        .endTemplate().endSpec().build();
    client.resource(fixed).fieldManager("plain").forceConflicts().serverSideApply();
    fixed.getSpec().setReplicas(null);
    client.resource(fixed).fieldManager("plain").forceConflicts().serverSideApply();
    assertThat(client.apps().deployments().inNamespace("default").withName(control).get().getSpec().getReplicas())
        .as("kubernetes#67135").isEqualTo(1);
    client.apps().deployments().inNamespace("default").withName(control).delete();
  }

  @Test
  void thePlanClampsTheBoundsAndSaysSoByConditionAndEvent() {
    String name = uniqueName("clamped");
    Tenant tenant = autoscaled(name, 1, 8);
    tenant.getSpec().setPlan("small");
    client.resources(Tenant.class).resource(tenant).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    await().atMost(CONVERGE).until(() -> autoscaler(name) != null);
    assertThat(autoscaler(name).getSpec().getMaxReplicas()).isEqualTo(3);
    Tenant clamped = client.resources(Tenant.class).withName(name).get();
    assertThat(Conditions.find(clamped.getStatus().getConditions(), Conditions.AUTOSCALED)).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("ClampedByPlan");
      assertThat(c.getMessage()).isEqualTo("web: maxReplicas 8 is above the plan's 3, its HPA scales 1-3");
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
        .anyMatch(e -> name.equals(e.getInvolvedObject().getName()) && "ClampedByPlan".equals(e.getReason())
            && "Warning".equals(e.getType())));
  }

  @Test
  void aFrozenAutoscaledAppStaysAtZeroAndThawsAtItsFloorNeverThroughOne() throws Exception {
    String name = uniqueName("thawed");
    client.resources(Tenant.class).resource(autoscaled(name, 2, 6)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    await().atMost(Duration.ofSeconds(30)).until(() -> replicas(name) == 2);
    client.apps().deployments().inNamespace(namespace(name)).withName("app-web").scale(5);

    List<Integer> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = watchReplicas(name, seen::add)) {
      setState(client, name, TenantState.Frozen);
      awaitPhase(client, name, TenantPhase.Frozen, CONVERGE);
      Thread.sleep(HPA_SYNCS.toMillis());
      assertThat(replicas(name)).as("the HPA leaves a Deployment at zero").isZero();
      assertThat(autoscaler(name)).isNotNull();

      setState(client, name, TenantState.Active);
      awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
      Thread.sleep(HPA_SYNCS.toMillis());
    }
    assertThat(replicas(name)).isEqualTo(2);
    assertThat(seen).as("spec.replicas: frozen, then thawed at the floor").contains(0, 2).doesNotContain(1);
    assertThat(seen.subList(seen.indexOf(0), seen.size())).containsOnly(0, 2);
  }

  @Test
  void anAutoscalerDeletedByHandIsBackWithinOneSyncAndGoesBeforeFixedReplicasReturn() {
    String name = uniqueName("restored");
    client.resources(Tenant.class).resource(autoscaled(name, 2, 6)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    await().atMost(CONVERGE).until(() -> autoscaler(name) != null);
    String uid = autoscaler(name).getMetadata().getUid();

    client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(namespace(name)).withName("app-web").delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> autoscaler(name) != null && !uid.equals(autoscaler(name).getMetadata().getUid()));

    int from = harness.requests.all().size();
    client.resources(Tenant.class).withName(name).edit(t -> {
      t.getSpec().getApps().get(0).setAutoscaling(null);
      t.getSpec().getApps().get(0).setReplicas(3);
      return t;
    });
    await().atMost(CONVERGE).until(() -> autoscaler(name) == null && replicas(name) == 3);
    List<String> writes = harness.requests.all().subList(from, harness.requests.all().size()).stream()
        .filter(r -> !r.startsWith("GET ") && r.contains("/namespaces/" + namespace(name) + "/")).toList();
    assertThat(writes).as("the HPA deleted before the Deployment's apply")
        .filteredOn(r -> r.contains("/horizontalpodautoscalers/app-web") || r.contains("/deployments/app-web"))
        .first().asString().startsWith("DELETE ");
  }

  @Test
  @Order(Integer.MAX_VALUE) // last: it runs another operator for a while
  void theDeprecatedSwitchTurnedOnHandsTheReplicasOverWithoutADrop() throws Exception {
    String name = uniqueName("switched");
    client.resources(Tenant.class).resource(tenant(name, 3, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    harness.operator.close();

    List<Integer> seen = new CopyOnWriteArrayList<>();
    OperatorHarness switched = new OperatorHarness(cluster, config.with("appReplicasManagedExternally: true"));
    try (Watch watch = watchReplicas(name, seen::add)) {
      await().atMost(CONVERGE).until(() -> client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get()
          .getMetadata().getAnnotations().containsKey(Autoscaling.MIN_REPLICAS));
      client.apps().deployments().inNamespace(namespace(name)).withName("app-web").scale(5); // its own HPA, say
      switched.parts.queue().add(name);
      Thread.sleep(1000);
      switched.awaitIdle();
      assertThat(replicas(name)).as("left to whoever scales it").isEqualTo(5);
      assertThat(seen).as("spec.replicas from the switch on").isNotEmpty().allMatch(r -> r >= 3);
    } finally {
      switched.operator.close();
      switched.operatorClient.close();
      harness.restart();
    }
    await().atMost(CONVERGE).until(() -> replicas(name) == 3); // switched off: the spec's replicas again
  }

  private static Tenant autoscaled(String name, int min, int max) {
    Tenant tenant = tenant(name, 1, false);
    AppSpec web = tenant.getSpec().getApps().get(0);
    web.setReplicas(null);
    web.setAutoscaling(new AutoscalingSpec(min, max, 80));
    return tenant;
  }

  private static Tenant awaitStatusReplicas(String name, String replicas) {
    await().atMost(Duration.ofSeconds(30)).until(() -> replicas.equals(
        client.resources(Tenant.class).withName(name).get().getStatus().getReplicas()));
    return client.resources(Tenant.class).withName(name).get();
  }

  /** Every spec.replicas the app's Deployment is seen with from now on. */
  private static Watch watchReplicas(String name, Consumer<Integer> seen) {
    return client.apps().deployments().inNamespace(namespace(name)).withName("app-web").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Deployment deployment) {
        seen.accept(deployment.getSpec().getReplicas());
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    });
  }

  /** Writes the operator sent to the app's Deployment so far (any method but GET). */
  private static int deploymentWrites(String name) {
    return (int) harness.requests.all().stream()
        .filter(r -> !r.startsWith("GET ") && r.contains("/namespaces/" + namespace(name) + "/deployments/app-web")).count();
  }

  private static int replicas(String name) {
    return client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get().getSpec().getReplicas();
  }

  private static HorizontalPodAutoscaler autoscaler(String name) {
    return client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(namespace(name)).withName("app-web").get();
  }

  private static String namespace(String name) {
    return "tenant-" + name;
  }
}
