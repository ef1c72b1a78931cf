package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setAppVersion;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRangeItem;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.v1alpha1.AppStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Active tenants on the simulated cluster: provisioning, readiness, self-healing, version changes, failures. */
@WithCluster(workloads = true)
class ActiveTenantIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final String EPHEMERAL = "ephemeral-storage";
  private static OperatorConfig config;
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    config = OperatorHarness.withTightPlan(OperatorConfig.defaults(), 2);
    harness = new OperatorHarness(cluster, config);
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void anActiveTenantGetsEveryObjectAndBecomesReadyOnceItsWorkloadsAreAvailable() {
    String name = uniqueName("full");
    client.resources(Tenant.class).resource(tenant(name, 2, true)).create();
    Tenant ready = awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;

    Deployment web = client.apps().deployments().inNamespace(ns).withName("app-web").get();
    assertThat(web.getStatus().getAvailableReplicas()).isEqualTo(2);
    StatefulSet db = client.apps().statefulSets().inNamespace(ns).withName("db-main").get();
    assertThat(db.getStatus().getReadyReplicas()).isEqualTo(1);
    assertThat(client.persistentVolumeClaims().inNamespace(ns).withName("data-db-main-0").get().getStatus().getPhase())
        .isEqualTo("Bound");

    Namespace namespace = client.namespaces().withName(ns).get();
    assertThat(namespace.getMetadata().getLabels()).containsEntry("pod-security.kubernetes.io/enforce", "restricted");
    assertThat(namespace.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(client.rbac().roles().inNamespace(ns).list().getItems()).as("the access levels are ClusterRoles").isEmpty();
    assertThat(client.rbac().roleBindings().inNamespace(ns).list().getItems())
        .extracting(b -> b.getMetadata().getName(), b -> b.getRoleRef().getKind() + "/" + b.getRoleRef().getName())
        .containsExactlyInAnyOrder(tuple("tenant-admin", "ClusterRole/tenantry-tenant-admin"),
            tuple("tenant-operator", "ClusterRole/tenantry-tenant-operator"),
            tuple("tenant-viewer", "ClusterRole/tenantry-tenant-viewer"));
    assertThat(names(client.network().v1().networkPolicies().inNamespace(ns).list().getItems()))
        .containsExactlyInAnyOrder("tenant-isolation", "allow-from-edge");
    assertThat(client.resourceQuotas().inNamespace(ns).withName("tenant-quota").get().getSpec().getHard()).containsKey("pods");
    assertThat(client.limitRanges().inNamespace(ns).withName("tenant-limits").get()).isNotNull();
    assertThat(names(client.services().inNamespace(ns).list().getItems())).containsExactlyInAnyOrder("app-web", "db-main");
    assertThat(names(client.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems()))
        .containsExactlyInAnyOrder("app-web", "db-main");
    Secret credentials = client.secrets().inNamespace(ns).withName("db-main-credentials").get();
    assertThat(DatabaseModel.password(credentials)).hasSize(32);

    assertThat(ready.getStatus().getObservedGeneration()).isEqualTo(ready.getMetadata().getGeneration());
    assertThat(ready.getStatus().getNamespace()).isEqualTo(ns);
    assertThat(ready.getStatus().getVersions()).isEqualTo("web=1.0.0");
    assertThat(ready.getStatus().getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
        .containsExactly("Ready=True", "NamespaceReady=True", "SecretsSynced=True", "DatabasesReady=True", "AppsReady=True");
    assertThat(client.v1().events().inNamespace("default").list().getItems())
        .anySatisfy(e -> {
          assertThat(e.getInvolvedObject().getName()).isEqualTo(name);
          assertThat(e.getReason()).isEqualTo("Ready");
        });
  }

  @Test
  void ephemeralStorageIsBoundedAsThePlanSays() {
    String name = uniqueName("disk");
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;
    Plan plan = config.plans().get("standard");
    Quantity request = new Quantity(plan.defaultRequest().get(EPHEMERAL));
    Quantity limit = new Quantity(plan.defaultLimit().get(EPHEMERAL));

    LimitRangeItem defaults = client.limitRanges().inNamespace(ns).withName("tenant-limits").get().getSpec().getLimits().get(0);
    assertThat(defaults.getDefaultRequest()).containsEntry(EPHEMERAL, request);
    assertThat(defaults.getDefault()).containsEntry(EPHEMERAL, limit);
    assertThat(client.resourceQuotas().inNamespace(ns).withName("tenant-quota").get().getSpec().getHard())
        .containsEntry("requests." + EPHEMERAL, new Quantity(plan.quota().get("requests." + EPHEMERAL)))
        .containsEntry("limits." + EPHEMERAL, new Quantity(plan.quota().get("limits." + EPHEMERAL)));

    // The generated pod templates leave ephemeral storage to the LimitRange, which fills it at admission.
    List<Pod> pods = client.pods().inNamespace(ns).list().getItems();
    assertThat(pods).extracting(p -> p.getMetadata().getLabels().get(Labels.COMPONENT) + "/" + p.getMetadata().getLabels().get(Labels.NAME))
        .containsExactlyInAnyOrder("app/web", "database/main");
    for (Pod pod : pods) {
      for (Container container : pod.getSpec().getContainers()) {
        assertThat(container.getResources().getRequests()).as(container.getName()).containsEntry(EPHEMERAL, request);
        assertThat(container.getResources().getLimits()).as(container.getName()).containsEntry(EPHEMERAL, limit);
      }
      assertThat(pod.getSpec().getVolumes()).filteredOn(v -> v.getEmptyDir() != null).isNotEmpty()
          .allSatisfy(v -> assertThat(v.getEmptyDir().getSizeLimit()).as(v.getName()).isEqualTo(new Quantity("256Mi")));
    }

    // A pod asking for more than the plan's cap is refused, naming the resource.
    Quantity tooMuch = new Quantity(plan.quota().get("limits." + EPHEMERAL));
    tooMuch.setAmount(tooMuch.getAmount() + "0");
    Pod hog = new PodBuilder().withNewMetadata().withName("hog").withNamespace(ns).endMetadata()
        .withNewSpec().addNewContainer().withName("hog").withImage("registry.example.com/hog:1")
        .withNewResources().addToLimits(EPHEMERAL, tooMuch).endResources()
        .withNewSecurityContext().withAllowPrivilegeEscalation(false).withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
        .withNewCapabilities().withDrop("ALL").endCapabilities().endSecurityContext()
        .endContainer().endSpec().build();
    assertThatThrownBy(() -> client.pods().resource(hog).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("exceeded quota").hasMessageContaining("limits." + EPHEMERAL);
  }

  @Test
  void aTenantWhosePodsCannotAllRunIsNeverReady() {
    // The "tight" plan's quota admits 2 pods; 3 replicas cannot all run, so the app never becomes available.
    String name = uniqueName("blocked");
    Tenant tenant = tenant(name, 3, false);
    tenant.getSpec().setPlan("tight");
    client.resources(Tenant.class).resource(tenant).create();
    await().atMost(CONVERGE).until(() -> {
      Deployment d = client.apps().deployments().inNamespace("tenant-" + name).withName("app-web").get();
      return d != null && d.getStatus() != null && Integer.valueOf(2).equals(d.getStatus().getAvailableReplicas());
    });
    harness.awaitIdle();
    Tenant stuck = client.resources(Tenant.class).withName(name).get();
    assertThat(stuck.getStatus().getPhase()).isEqualTo(TenantPhase.Provisioning);
    assertThat(stuck.getStatus().getConditions()).anySatisfy(c -> {
      assertThat(c.getType()).isEqualTo("AppsReady");
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getMessage()).isEqualTo("waiting for apps: web");
    });
  }

  @Test
  void deletedOrEditedObjectsAreRepaired() {
    String name = uniqueName("heal");
    client.resources(Tenant.class).resource(tenant(name, 1, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;

    String bindingUid = client.rbac().roleBindings().inNamespace(ns).withName("tenant-viewer").get().getMetadata().getUid();
    client.rbac().roleBindings().inNamespace(ns).withName("tenant-viewer").delete();
    client.network().v1().networkPolicies().inNamespace(ns).withName("tenant-isolation").delete();
    client.services().inNamespace(ns).withName("app-web").delete();
    client.apps().deployments().inNamespace(ns).withName("app-web").delete();
    client.rbac().roleBindings().inNamespace(ns).withName("tenant-operator").edit(b -> {
      b.getSubjects().add(new SubjectBuilder().withKind("User").withName("mallory").build());
      return b;
    });

    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      RoleBinding viewer = client.rbac().roleBindings().inNamespace(ns).withName("tenant-viewer").get();
      assertThat(viewer).isNotNull();
      assertThat(viewer.getMetadata().getUid()).isNotEqualTo(bindingUid);
      assertThat(client.network().v1().networkPolicies().inNamespace(ns).withName("tenant-isolation").get()).isNotNull();
      assertThat(client.services().inNamespace(ns).withName("app-web").get()).isNotNull();
      assertThat(client.apps().deployments().inNamespace(ns).withName("app-web").get()).isNotNull();
      assertThat(client.rbac().roleBindings().inNamespace(ns).withName("tenant-operator").get().getSubjects())
          .extracting(Subject::getName).containsExactly("tenantry:" + name + ":operator");
    });
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
  }

  @Test
  void foreignFieldsAreLeftAlone() {
    String name = uniqueName("foreign");
    client.resources(Tenant.class).resource(tenant(name, 1, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;
    client.apps().deployments().inNamespace(ns).withName("app-web").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"annotations\":{\"example.com/owner\":\"someone-else\"}}}");
    // A spec change makes the operator write the Deployment again; the other annotation survives it.
    setAppVersion(client, name, "1.0.1");
    await().atMost(CONVERGE).until(() -> client.apps().deployments().inNamespace(ns).withName("app-web").get()
        .getSpec().getTemplate().getSpec().getContainers().get(0).getImage().endsWith(":1.0.1"));
    assertThat(client.apps().deployments().inNamespace(ns).withName("app-web").get().getMetadata().getAnnotations())
        .containsEntry("example.com/owner", "someone-else");
  }

  @Test
  void aNewVersionRollsTheDeploymentAndShowsInTheStatusOnceAvailable() {
    String name = uniqueName("version");
    client.resources(Tenant.class).resource(tenant(name, 2, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;

    setAppVersion(client, name, "2.0.0");
    Tenant ready = await().atMost(CONVERGE).pollInterval(Duration.ofMillis(100)).until(
        () -> client.resources(Tenant.class).withName(name).get(),
        t -> {
          AppStatus web = t.getStatus().getApps().get(0);
          if ("2.0.0".equals(web.getVersion())) {
            // The status shows the new version only when the new pods are all available.
            Deployment d = client.apps().deployments().inNamespace(ns).withName("app-web").get();
            assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(2);
            assertThat(d.getStatus().getAvailableReplicas()).isEqualTo(2);
            return true;
          }
          return false;
        });
    assertThat(ready.getStatus().getVersions()).isEqualTo("web=2.0.0");
    assertThat(client.apps().deployments().inNamespace(ns).withName("app-web").get()
        .getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example.com/acme/web:2.0.0");
  }

  @Test
  void aRolloutThatCannotFinishKeepsTheOldVersionInTheStatus() {
    // 2 replicas on the "tight" plan (2 pods): a rolling update needs a third pod, which the quota refuses.
    String name = uniqueName("stuck");
    Tenant tenant = tenant(name, 2, false);
    tenant.getSpec().setPlan("tight");
    client.resources(Tenant.class).resource(tenant).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);

    setAppVersion(client, name, "2.0.0");
    Tenant progressing = awaitPhase(client, name, TenantPhase.Progressing, CONVERGE);
    assertThat(progressing.getStatus().getApps().get(0).getVersion()).isEqualTo("1.0.0");
    assertThat(progressing.getStatus().getVersions()).isEqualTo("web=1.0.0");
    assertThat(client.apps().deployments().inNamespace("tenant-" + name).withName("app-web").get()
        .getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).endsWith(":2.0.0");
  }

  @Test
  void anUnknownPlanIsReportedAndNothingIsCreated() {
    String name = uniqueName("noplan");
    Tenant tenant = tenant(name, 1, false);
    tenant.getSpec().setPlan("platinum");
    client.resources(Tenant.class).resource(tenant).create();
    Tenant degraded = awaitPhase(client, name, TenantPhase.Degraded, CONVERGE);
    assertThat(degraded.getStatus().getConditions().get(0).getReason()).isEqualTo("UnknownPlan");
    assertThat(degraded.getStatus().getConditions().get(0).getMessage())
        .isEqualTo("spec.plan: the operator has no plan named 'platinum'; known plans: standard, tight");
    assertThat(client.namespaces().withName("tenant-" + name).get()).isNull();
  }

  @Test
  void aFailingSyncBacksOffSaysWhyAndRecoversByItself() throws Exception {
    String name = uniqueName("refused");
    String policy = "test-refuse-" + name;
    // An admission policy that refuses the tenant's Deployment: every sync fails at that write.
    client.resource(new ValidatingAdmissionPolicyBuilder()
        .withNewMetadata().withName(policy).endMetadata()
        .withNewSpec().withFailurePolicy("Fail")
        .withNewMatchConstraints().addNewResourceRule().withApiGroups("apps").withApiVersions("v1")
        .withOperations("CREATE", "UPDATE").withResources("deployments").endResourceRule().endMatchConstraints()
        .addNewValidation().withExpression("!has(object.metadata.labels) || !('tenantry.io/tenant' in object.metadata.labels)"
            + " || object.metadata.labels['tenantry.io/tenant'] != '" + name + "'")
        .withMessage("deployments are blocked here by a test policy").endValidation()
        .endSpec().build()).serverSideApply();
    client.resource(new ValidatingAdmissionPolicyBindingBuilder()
        .withNewMetadata().withName(policy).endMetadata()
        .withNewSpec().withPolicyName(policy).withValidationActions("Deny").endSpec().build()).serverSideApply();
    try {
      // The policy takes a moment to be enforced; a tenant created before that would not fail.
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        try {
          client.apps().deployments().resource(new DeploymentBuilder()
              .withNewMetadata().withName("probe").withNamespace("default").addToLabels("tenantry.io/tenant", name).endMetadata()
              .withNewSpec().withNewSelector().addToMatchLabels("app", "probe").endSelector()
              .withNewTemplate().withNewMetadata().addToLabels("app", "probe").endMetadata()
              .withNewSpec().addNewContainer().withName("probe").withImage("registry.example.com/probe:1").endContainer()
              .endSpec().endTemplate().endSpec().build())
              .dryRun().create();
          return false;
        } catch (KubernetesClientException e) {
          return e.getMessage().contains("blocked here by a test policy");
        }
      });
      client.resources(Tenant.class).resource(tenant(name, 1, false)).create();
      Tenant degraded = awaitPhase(client, name, TenantPhase.Degraded, CONVERGE);
      assertThat(degraded.getStatus().getConditions().get(0).getReason()).isEqualTo("WriteFailed");
      assertThat(degraded.getStatus().getConditions().get(0).getMessage())
          .startsWith("could not write Deployment tenant-" + name + "/app-web: ")
          .contains("deployments are blocked here by a test policy");
      // One refused object does not stop the others.
      assertThat(client.services().inNamespace("tenant-" + name).withName("app-web").get()).isNotNull();

      int retriesBefore = harness.parts.queue().numRequeues(name);
      Thread.sleep(10_000);
      double failures = harness.parts.queue().numRequeues(name) - retriesBefore;
      System.out.printf("failed syncs of a refused tenant in 10 s: %.0f%n", failures);
      assertThat(failures).as("per-tenant exponential backoff, not a hot loop").isBetween(1.0, 12.0);
    } finally {
      client.resources(ValidatingAdmissionPolicyBinding.class)
          .withName(policy).delete();
      client.admissionRegistration().v1().validatingAdmissionPolicies().withName(policy).delete();
    }
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));
  }

  private static List<String> names(List<? extends HasMetadata> objects) {
    return objects.stream().map(o -> o.getMetadata().getName()).toList();
  }
}
