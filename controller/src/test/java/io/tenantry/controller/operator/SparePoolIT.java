package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A SparePool keeps its buffer of Ready spares, builds at most maxProvisioning at once, refills
 * after an allocation, keeps unallocated spares on its template and retires spares beyond a
 * smaller buffer.
 */
@WithCluster(workloads = true)
class SparePoolIT {

  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults());
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void aPoolKeepsItsBufferRefillsFollowsItsTemplateAndShrinks() throws Exception {
    String pool = uniqueName("pool");
    Set<String> building = ConcurrentHashMap.newKeySet();
    AtomicInteger most = new AtomicInteger();
    Set<String> createdWithFinalizer = ConcurrentHashMap.newKeySet();
    Set<String> createdWithout = ConcurrentHashMap.newKeySet();
    try (Watch watch = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Tenant t) {
        if (action == Action.ADDED) {
          (t.getMetadata().getFinalizers().contains(WellKnown.CLEANUP_FINALIZER) ? createdWithFinalizer : createdWithout)
              .add(t.getMetadata().getName());
        }
        boolean unready = action != Action.DELETED && t.getSpec().getState() == TenantState.New
            && (t.getStatus() == null || t.getStatus().getPhase() != TenantPhase.Ready);
        if (unready) {
          building.add(t.getMetadata().getName());
        } else {
          building.remove(t.getMetadata().getName());
        }
        most.accumulateAndGet(building.size(), Math::max);
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      TenantTemplate template = new TenantTemplate();
      template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, 8080));
      SparePool sparePool = new SparePool();
      sparePool.getMetadata().setName(pool);
      sparePool.setSpec(new SparePoolSpec(4, 2, template));
      client.resources(SparePool.class).resource(sparePool).create();

      SparePool full = awaitPool(pool, p -> p.getStatus() != null && Integer.valueOf(4).equals(p.getStatus().getReady()));
      assertThat(full.getStatus().getProvisioning()).isZero();
      assertThat(full.getStatus().getConditions().get(0).getReason()).isEqualTo("BufferFull");
      assertThat(most.get()).as("spares built at once").isBetween(1, 2);
      assertThat(spares(pool)).hasSize(4).allSatisfy(t -> assertThat(t.getSpec().getState()).isEqualTo(TenantState.New));
      assertThat(createdWithFinalizer).as("spares created with the operator's finalizer: no write nor sync to add it").hasSize(4);
      assertThat(createdWithout).isEmpty();

      // Bound to a customer by hand (the allocation API's job): the pool builds a replacement.
      String bound = spares(pool).get(0).getMetadata().getName();
      client.resources(Tenant.class).withName(bound).patch(PatchContext.of(PatchType.JSON_MERGE),
          "{\"spec\":{\"state\":\"Active\",\"organization\":\"Acme Corp\",\"email\":\"ops@acme.example\"}}");
      awaitPool(pool, p -> Integer.valueOf(4).equals(p.getStatus().getReady()) && Integer.valueOf(1).equals(p.getStatus().getAllocated()));
      assertThat(spares(pool)).hasSize(5);

      // A new template version: unallocated spares follow, the allocated tenant does not.
      client.resources(SparePool.class).withName(pool).patch(PatchContext.of(PatchType.JSON),
          "[{\"op\":\"replace\",\"path\":\"/spec/template/apps/0/version\",\"value\":\"2.0.0\"}]");
      await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> assertThat(spares(pool))
          .allSatisfy(t -> assertThat(t.getSpec().getApps().get(0).getVersion())
              .isEqualTo(t.getMetadata().getName().equals(bound) ? "1.0.0" : "2.0.0")));
      awaitPool(pool, p -> Integer.valueOf(4).equals(p.getStatus().getReady()));

      // A smaller buffer: the extra spares are purged and deleted; the allocated tenant stays.
      client.resources(SparePool.class).withName(pool).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"buffer\":1}}");
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
        assertThat(spares(pool)).hasSize(2);
        assertThat(client.resources(Tenant.class).withName(bound).get().getSpec().getState()).isEqualTo(TenantState.Active);
      });
      awaitPool(pool, p -> Integer.valueOf(1).equals(p.getStatus().getReady()) && Integer.valueOf(0).equals(p.getStatus().getProvisioning()));
    }
  }

  private static List<Tenant> spares(String pool) {
    return client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems();
  }

  private static SparePool awaitPool(String name, java.util.function.Predicate<SparePool> condition) {
    return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
        .until(() -> client.resources(SparePool.class).withName(name).get(), p -> p != null && p.getStatus() != null && condition.test(p));
  }
}
