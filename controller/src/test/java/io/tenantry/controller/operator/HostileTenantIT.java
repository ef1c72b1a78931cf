package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.config.PlanToleration;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.secretstore.Scope;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A hostile tenant, acting through impersonation as one tenant's admin, operator and viewer, with
 * the shipped policies installed: each attack is refused (with the message that says why) or has
 * no effect on any other tenant, and each test asserts both where both apply.
 */
@WithCluster(workloads = true)
class HostileTenantIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  /**
   * The plan's count/configmaps here: the operator makes one (the identity) and Kubernetes one
   * (kube-root-ca.crt), so a tenant may make three of its own.
   */
  private static final int CONFIG_MAPS = 5;
  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static TestCluster cluster;
  private static String acme;
  private static String globex;
  private static KubernetesClient admin;
  private static KubernetesClient operator;
  private static KubernetesClient viewer;

  @BeforeAll
  static void start(TestCluster testCluster, KubernetesClient kubernetesClient) throws Exception {
    cluster = testCluster;
    client = kubernetesClient;
    // Its own template namespace: other test classes leave their templates in the default one.
    harness = new OperatorHarness(cluster, withPlans(OperatorConfig.defaults().with("templateNamespace: tenantry-templates-hostile")));
    OperatorHarness.installAdmissionPolicy(client);
    acme = uniqueName("acme");
    globex = uniqueName("globex");
    client.resources(Tenant.class).resource(tenant(acme, 1, true)).create();
    client.resources(Tenant.class).resource(tenant(globex, 1, true)).create();
    awaitPhase(client, acme, TenantPhase.Ready, CONVERGE);
    awaitPhase(client, globex, TenantPhase.Ready, CONVERGE);
    admin = as("mallory", "tenantry:" + acme + ":admin");
    operator = as("oscar", "tenantry:" + acme + ":operator");
    viewer = as("victor", "tenantry:" + acme + ":viewer");
    // The policies are enforced a moment after they are created: wait until the first one bites.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> refused(() ->
        admin.secrets().inNamespace(ns(acme)).resource(planted("probe")).create()));
  }

  @AfterAll
  static void stop() {
    admin.close();
    operator.close();
    viewer.close();
    harness.close();
  }

  private static KubernetesClient as(String user, String group) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(cluster.config())
        .withImpersonateUsername(user).withImpersonateGroups(group).build()).build();
  }

  private static String ns(String tenant) {
    return "tenant-" + tenant;
  }

  private static boolean refused(Executable attempt) {
    try {
      attempt.execute();
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 403 || e.getCode() == 422;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /** A Secret dressed as a template of the operator's. */
  private static Secret planted(String name) {
    return new SecretBuilder().withNewMetadata().withName(name).withNamespace(ns(acme))
        .addToLabels("app.kubernetes.io/managed-by", "tenantry").addToLabels("tenantry.io/template", "true").endMetadata()
        .addToStringData("password", "from-mallory").build();
  }

  private static boolean allowed(KubernetesClient as, String namespace, String verb, String group, String resource,
      String subresource) {
    SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
        .withNamespace(namespace).withVerb(verb).withGroup(group).withResource(resource).withSubresource(subresource)
        .endResourceAttributes().endSpec().build();
    return as.authorization().v1().selfSubjectAccessReview().create(review).getStatus().getAllowed();
  }

  @Test
  void aSecretDressedAsATemplateIsRefusedAndEvenPlantedByAnAdminReachesNoOtherTenant() {
    assertThatThrownBy(() -> admin.secrets().inNamespace(ns(acme)).resource(planted("planted-template")).create())
        .hasMessageContaining("the labels tenantry.io/* and app.kubernetes.io/managed-by are set by the Tenantry operator only:"
            + " mallory may not set, change or remove them on Secret planted-template");

    // A cluster administrator is not stopped by the policy: the operator still takes templates from
    // the template namespace only. Real templates pushed afterwards reach globex; the planted one never does.
    client.secrets().inNamespace(ns(acme)).resource(planted("planted-template")).create();
    for (String template : List.of("one", "two", "three")) {
      harness.store.put(Scope.template(), template, Map.of("key", template.getBytes(StandardCharsets.UTF_8)));
    }
    harness.parts.templates().refresh();
    // Each tenant gets the templates in its own sync: wait for both.
    await().atMost(CONVERGE).until(() -> client.secrets().inNamespace(ns(globex)).withName("three").get() != null
        && client.secrets().inNamespace(ns(acme)).withName("three").get() != null);
    assertThat(client.secrets().inNamespace(ns(globex)).withName("planted-template").get()).isNull();

    // A template removed from the store is removed from every tenant.
    harness.store.delete(Scope.template(), "three");
    harness.parts.templates().refresh();
    await().atMost(CONVERGE).until(() -> client.secrets().inNamespace(ns(globex)).withName("three").get() == null
        && client.secrets().inNamespace(ns(acme)).withName("three").get() == null);
  }

  @Test
  void theOperatorsLabelsCannotBeRemovedToHideAnObjectFromIt() {
    assertThatThrownBy(() -> admin.apps().deployments().inNamespace(ns(acme)).withName("app-web")
        .edit(d -> { d.getMetadata().getLabels().remove("app.kubernetes.io/managed-by"); return d; }))
        .hasMessageContaining("Deployment app-web"); // refused both as a label change and as a write to a managed object
    Deployment web = client.apps().deployments().inNamespace(ns(acme)).withName("app-web").get();
    assertThat(web.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "tenantry");
  }

  @Test
  void servicesCannotBypassTheEdge() {
    Service clusterIp = new ServiceBuilder().withNewMetadata().withName("svc").endMetadata()
        .withNewSpec().addNewPort().withPort(80).endPort().endSpec().build();
    Map<String, Service> refused = Map.of(
        "spec.type LoadBalancer is refused", service(clusterIp, "lb", s -> s.getSpec().setType("LoadBalancer")),
        "spec.type NodePort is refused", service(clusterIp, "np", s -> s.getSpec().setType("NodePort")),
        "spec.type ExternalName is refused", service(clusterIp, "en", s -> {
          s.getSpec().setType("ExternalName");
          s.getSpec().setExternalName("kubernetes.default.svc.cluster.local");
          s.getSpec().setPorts(null);
        }),
        "spec.externalIPs is refused in tenant namespaces", service(clusterIp, "ext", s -> s.getSpec().setExternalIPs(List.of("203.0.113.7"))),
        "the annotations external-dns.alpha.kubernetes.io/* are refused", service(clusterIp, "dns", s -> s.getMetadata()
            .setAnnotations(Map.of("external-dns.alpha.kubernetes.io/hostname", "login.company.example"))));
    refused.forEach((message, service) -> assertThatThrownBy(() -> admin.services().inNamespace(ns(acme)).resource(service).create())
        .as(message).hasMessageContaining("Service " + service.getMetadata().getName() + ": " + message));
    assertThat(client.services().inNamespace(ns(acme)).list().getItems()).extracting(s -> s.getMetadata().getName())
        .doesNotContain("lb", "np", "en", "ext", "dns");
    // The tenant's own ClusterIP Services are its to make.
    assertThat(admin.services().inNamespace(ns(acme)).resource(clusterIp).dryRun().create()).isNotNull();

    // Hand-made endpoints could forward a Service's traffic into another tenant: no level writes them.
    assertThatThrownBy(() -> admin.endpoints().inNamespace(ns(acme)).resource(new EndpointsBuilder().withNewMetadata()
        .withName("app-web-elsewhere").endMetadata().build()).create()).hasMessageContaining("forbidden");
    assertThatThrownBy(() -> admin.discovery().v1().endpointSlices().inNamespace(ns(acme)).resource(new EndpointSliceBuilder()
        .withNewMetadata().withName("slice").endMetadata().withAddressType("IPv4").build()).create())
        .hasMessageContaining("forbidden");
    assertThat(allowed(operator, ns(acme), "create", "", "endpoints", null)).isFalse();
  }

  private static Service service(Service base, String name, Consumer<Service> change) {
    Service service = new ServiceBuilder(base).editMetadata().withName(name).endMetadata().build();
    change.accept(service);
    return service;
  }

  /**
   * The standard plan counting {@link #CONFIG_MAPS} ConfigMaps, and the plan "isolated": its pods in
   * user namespaces, at the PriorityClass tenant-isolated, tolerating the taint dedicated=isolated.
   */
  private static OperatorConfig withPlans(OperatorConfig config) {
    Plan standard = config.plans().get("standard");
    Map<String, String> quota = new LinkedHashMap<>(standard.quota());
    quota.put("count/configmaps", Integer.toString(CONFIG_MAPS));
    Plan isolated = new Plan(standard.quota(), standard.defaultRequest(), standard.defaultLimit(), standard.storageClassName(),
        standard.egress(), "tenant-isolated", List.of(new PlanToleration("dedicated", "Equal", "isolated", "NoSchedule")), false,
        standard.backup(), standard.maxReplicasPerApp(), standard.pooler());
    return config.with(Serialization.asJson(Map.of("plans", Map.of("standard", standard.withQuota(quota), "isolated", isolated))));
  }

  @Test
  void aPlanThatIsolatesItsPodsGetsThemScheduledAndHoldsTheTenantsOwnPodsToTheSame() {
    client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("tenant-isolated")
        .endMetadata().withValue(1000).build()).serverSideApply();
    String hooli = uniqueName("hooli");
    Tenant tenant = tenant(hooli, 1, true);
    tenant.getSpec().setPlan("isolated");
    client.resources(Tenant.class).resource(tenant).create();
    awaitPhase(client, hooli, TenantPhase.Ready, CONVERGE);
    List<Pod> pods = client.pods().inNamespace(ns(hooli)).list().getItems();
    assertThat(pods).hasSize(2).allSatisfy(pod -> {
      assertThat(pod.getSpec().getHostUsers()).isFalse();
      assertThat(pod.getSpec().getPriorityClassName()).isEqualTo("tenant-isolated");
      assertThat(pod.getSpec().getPriority()).isEqualTo(1000);
      assertThat(pod.getSpec().getTolerations()).extracting(t -> t.getKey() + "=" + t.getValue())
          .contains("dedicated=isolated");
    });

    KubernetesClient itsAdmin = as("gavin", "tenantry:" + hooli + ":admin");
    try {
      assertThatThrownBy(() -> itsAdmin.pods().inNamespace(ns(hooli)).resource(pod("shared-ids", p -> { })).dryRun().create())
          .hasMessageContaining("Pod shared-ids: spec.hostUsers must be false: the tenant's plan runs every pod in a user namespace");
      assertThatThrownBy(() -> itsAdmin.pods().inNamespace(ns(hooli)).resource(pod("other-class", p -> {
        p.setHostUsers(false);
        p.setPriorityClassName("system-cluster-critical");
      })).dryRun().create()).hasMessageContaining("the tenant's plan allows tenant-isolated only");
      Pod likeTheOperators = pod("like-the-operators", p -> {
        p.setHostUsers(false);
        p.setPriorityClassName("tenant-isolated");
        p.setTolerations(List.of(new TolerationBuilder().withKey("dedicated").withOperator("Equal").withValue("isolated")
            .withEffect("NoSchedule").build()));
      });
      assertThat(itsAdmin.pods().inNamespace(ns(hooli)).resource(likeTheOperators).dryRun().create()).isNotNull();
    } finally {
      itsAdmin.close();
    }
  }

  @Test
  void whatTheOperatorMadeIsReadOnlyToEveryLevelButARolloutRestart() {
    String readOnly = " is managed by the Tenantry operator and is read-only to ";
    assertThatThrownBy(() -> admin.secrets().inNamespace(ns(acme)).withName("db-main-credentials").patch(PatchContext.of(PatchType.JSON),
        "[{\"op\":\"remove\",\"path\":\"/data/password\"}]"))
        .hasMessageContaining("Secret db-main-credentials" + readOnly + "mallory");
    assertThatThrownBy(() -> admin.services().inNamespace(ns(acme)).withName("app-web").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"kubernetes.default.svc.cluster.local\"}}"))
        .as("refused as a write to a managed object and as an ExternalName, whichever policy answers first")
        .hasMessageMatching("(?s).*Service app-web( is managed by the Tenantry operator|: spec.type ExternalName is refused).*");
    assertThatThrownBy(() -> admin.services().inNamespace(ns(acme)).withName("app-web").delete())
        .hasMessageContaining("Service app-web" + readOnly);
    assertThatThrownBy(() -> admin.configMaps().inNamespace(ns(acme)).withName("tenant-identity").delete())
        .hasMessageContaining("ConfigMap tenant-identity" + readOnly);
    // A database's volume claim (made by the StatefulSet controller from the operator's template) holds the data.
    String claim = client.persistentVolumeClaims().inNamespace(ns(acme)).list().getItems().get(0).getMetadata().getName();
    assertThatThrownBy(() -> admin.persistentVolumeClaims().inNamespace(ns(acme)).withName(claim).delete())
        .hasMessageContaining("PersistentVolumeClaim " + claim + readOnly);
    assertThatThrownBy(() -> operator.apps().deployments().inNamespace(ns(acme)).withName("app-web")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"paused\":true}}"))
        .hasMessageContaining("Deployment app-web" + readOnly + "oscar");
    assertThatThrownBy(() -> operator.apps().deployments().inNamespace(ns(acme)).withName("app-web")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), restart("2026-01-01T00:00:00Z", Map.of("extra", "x"))))
        .as("a restart that changes anything else").hasMessageContaining("Deployment app-web" + readOnly);
    // No level holds the scale subresource: a Scale carries no labels to tell the operator's workloads by.
    assertThat(allowed(operator, ns(acme), "update", "apps", "deployments", "scale")).isFalse();
    assertThat(allowed(admin, ns(acme), "patch", "apps", "statefulsets", "scale")).isFalse();

    // kubectl rollout restart: admitted, rolls the pods, and the operator leaves the annotation alone.
    Deployment before = client.apps().deployments().inNamespace(ns(acme)).withName("app-web").get();
    operator.apps().deployments().inNamespace(ns(acme)).withName("app-web")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), restart("2026-11-26T10:00:00Z", Map.of()));
    await().atMost(CONVERGE).untilAsserted(() -> {
      Deployment web = client.apps().deployments().inNamespace(ns(acme)).withName("app-web").get();
      assertThat(web.getSpec().getTemplate().getMetadata().getAnnotations())
          .containsEntry("kubectl.kubernetes.io/restartedAt", "2026-11-26T10:00:00Z");
      assertThat(web.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"))
          .isNotEqualTo(before.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"));
    });
    awaitPhase(client, acme, TenantPhase.Ready, CONVERGE);
    assertThat(client.secrets().inNamespace(ns(acme)).withName("db-main-credentials").get().getData()).containsKey("password");
    assertThat(client.services().inNamespace(ns(acme)).withName("app-web").get().getSpec().getType()).isEqualTo("ClusterIP");

    // What the tenant made is its own to change and delete.
    ConfigMap own = admin.configMaps().inNamespace(ns(acme)).resource(new ConfigMapBuilder().withNewMetadata().withName("own")
        .endMetadata().addToData("k", "v").build()).create();
    admin.configMaps().inNamespace(ns(acme)).withName("own").edit(c -> new ConfigMapBuilder(c).addToData("k", "w").build());
    assertThat(admin.configMaps().inNamespace(ns(acme)).withName("own").delete()).isNotEmpty();
    assertThat(own).isNotNull();
  }

  private static String restart(String at, Map<String, String> more) {
    Map<String, String> annotations = new LinkedHashMap<>(more);
    annotations.put("kubectl.kubernetes.io/restartedAt", at);
    return Serialization.asJson(Map.of("spec", Map.of("template", Map.of("metadata", Map.of("annotations", annotations)))));
  }

  @Test
  void podsAskNothingOfTheNodesBeyondTheirPlan() {
    Map<String, Pod> refused = new LinkedHashMap<>();
    refused.put("spec.priorityClassName system-node-critical is refused in tenant namespaces: the tenant's plan allows none",
        pod("preempt", p -> p.setPriorityClassName("system-node-critical")));
    refused.put("spec.nodeName is refused in tenant namespaces", pod("pinned", p -> p.setNodeName("node-0")));
    refused.put("spec.tolerations node-role.kubernetes.io/control-plane|Exists||NoSchedule (key|operator|value|effect) are not"
        + " among the tenant's plan's", pod("tolerant", p -> p.setTolerations(List.of(new TolerationBuilder()
        .withKey("node-role.kubernetes.io/control-plane").withOperator("Exists").withEffect("NoSchedule").build()))));
    refused.put("the probes or lifecycle handlers of container(s) c name a host", pod("ssrf-probe", p -> p.getContainers().get(0)
        .setLivenessProbe(new ProbeBuilder().withNewHttpGet().withHost("169.254.169.254").withPath("/computeMetadata/v1/")
            .withPort(new IntOrString(80)).endHttpGet().build())));
    refused.put("the probes or lifecycle handlers of container(s) c name a host ", pod("ssrf-hook", p -> p.getContainers().get(0)
        .setLifecycle(new LifecycleBuilder().withNewPreStop().withNewTcpSocket().withHost("10.0.0.1")
            .withPort(new IntOrString(6443)).endTcpSocket().endPreStop().build())));
    refused.forEach((message, pod) -> assertThatThrownBy(() -> admin.pods().inNamespace(ns(acme)).resource(pod).create())
        .as(pod.getMetadata().getName()).hasMessageContaining("Pod " + pod.getMetadata().getName() + ": " + message.strip()));

    // On a workload's pod template as well as on a bare pod, whoever sends it.
    Deployment preempting = new DeploymentBuilder().withNewMetadata().withName("preempting").endMetadata().withNewSpec()
        .withNewSelector().addToMatchLabels("app", "preempting").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "preempting").endMetadata()
        .withSpec(pod("x", p -> p.setPriorityClassName("system-node-critical")).getSpec()).endTemplate().endSpec().build();
    assertThatThrownBy(() -> admin.apps().deployments().inNamespace(ns(acme)).resource(preempting).create())
        .hasMessageContaining("Deployment preempting: spec.priorityClassName system-node-critical is refused");
    assertThatThrownBy(() -> client.apps().deployments().inNamespace(ns(acme)).resource(preempting).dryRun().create())
        .hasMessageContaining("Deployment preempting: spec.priorityClassName system-node-critical is refused");
    // A pod that asks for nothing of the sort is admitted.
    assertThat(admin.pods().inNamespace(ns(acme)).resource(pod("plain", p -> { })).dryRun().create()).isNotNull();
  }

  @Test
  void aTenantCanStoreOnlyAsManyObjectsAsItsPlanCounts() {
    ResourceQuota quota = client.resourceQuotas().inNamespace(ns(acme)).withName("tenant-quota").get();
    assertThat(quota.getStatus().getHard()).containsKeys("count/secrets", "count/configmaps", "count/services",
        "count/serviceaccounts", "count/deployments.apps", "count/statefulsets.apps", "count/jobs.batch", "count/replicasets.apps");
    List<String> made = new java.util.ArrayList<>();
    try {
      assertThatThrownBy(() -> {
        for (int i = 0; i < CONFIG_MAPS + 1; i++) {
          String name = "filler-" + i;
          admin.configMaps().inNamespace(ns(acme)).resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata()
              .addToData("k", "v").build()).create();
          made.add(name);
        }
      }).hasMessageContaining("exceeded quota: tenant-quota").hasMessageContaining("count/configmaps");
      assertThat(made).hasSizeLessThan(CONFIG_MAPS);
    } finally {
      made.forEach(name -> client.configMaps().inNamespace(ns(acme)).withName(name).delete());
    }
  }

  @Test
  void theTenantsPeopleAreViewersWhileItIsFrozen() {
    String initech = uniqueName("initech");
    client.resources(Tenant.class).resource(tenant(initech, 1, false)).create();
    awaitPhase(client, initech, TenantPhase.Ready, CONVERGE);
    KubernetesClient itsAdmin = as("peter", "tenantry:" + initech + ":admin");
    try {
      assertThat(allowed(itsAdmin, ns(initech), "create", "apps", "deployments", null)).isTrue();
      OperatorHarness.setState(client, initech, TenantState.Frozen);
      awaitPhase(client, initech, TenantPhase.Frozen, CONVERGE);
      await().atMost(CONVERGE).until(() -> !allowed(itsAdmin, ns(initech), "create", "apps", "deployments", null));
      assertThat(allowed(itsAdmin, ns(initech), "get", "", "secrets", null)).isFalse();
      assertThat(allowed(itsAdmin, ns(initech), "list", "", "pods", null)).isTrue();
      OperatorHarness.setState(client, initech, TenantState.Active);
      await().atMost(CONVERGE).until(() -> allowed(itsAdmin, ns(initech), "create", "apps", "deployments", null));
    } finally {
      itsAdmin.close();
    }
  }

  @Test
  void noLevelFakesReadinessAndOnlyTheAdminExecsIntoPods() {
    Pod pod = client.pods().inNamespace(ns(acme)).list().getItems().get(0);
    assertThatThrownBy(() -> admin.pods().inNamespace(ns(acme)).resource(pod).updateStatus()).hasMessageContaining("forbidden");
    assertThat(allowed(operator, ns(acme), "update", "", "pods", "status")).isFalse();
    // Exec reads every Secret a pod mounts: the admin may read those anyway, the operator level may not.
    assertThat(allowed(admin, ns(acme), "create", "", "pods", "exec")).isTrue();
    assertThat(allowed(operator, ns(acme), "create", "", "pods", "exec")).isFalse();
    assertThat(allowed(operator, ns(acme), "get", "", "secrets", null)).isFalse();
    assertThat(allowed(viewer, ns(acme), "get", "", "secrets", null)).isFalse();
  }

  @Test
  void theMultiTenancyBenchmarksBehaviouralChecksHold() {
    Map<String, Pod> refusedPods = Map.of(
        "privileged", pod("privileged", p -> p.getContainers().get(0).setSecurityContext(
            new SecurityContextBuilder().withPrivileged(true).build())),
        "host network", pod("hostnet", p -> p.setHostNetwork(true)),
        "host PID", pod("hostpid", p -> p.setHostPID(true)),
        "host port", pod("hostport", p -> p.getContainers().get(0).getPorts().add(
            new ContainerPortBuilder().withContainerPort(80).withHostPort(80).build())),
        "added capability", pod("netadmin", p -> p.getContainers().get(0).setSecurityContext(
            new SecurityContextBuilder().withNewCapabilities().addToAdd("NET_ADMIN").endCapabilities().build())));
    refusedPods.forEach((what, pod) -> assertThatThrownBy(() -> admin.pods().inNamespace(ns(acme)).resource(pod).create())
        .as(what).hasMessageContaining("violates PodSecurity \"restricted:latest\""));

    assertThatThrownBy(() -> admin.resourceQuotas().inNamespace(ns(acme)).withName("tenant-quota")
        .edit(q -> { q.getSpec().getHard().remove("pods"); return q; })).hasMessageContaining("forbidden");
    assertThatThrownBy(() -> admin.network().v1().networkPolicies().inNamespace(ns(acme)).withName("tenant-isolation").delete())
        .hasMessageContaining("forbidden");
    assertThatThrownBy(() -> admin.secrets().inNamespace(ns(globex)).list()).hasMessageContaining("forbidden");
    assertThatThrownBy(() -> admin.pods().inNamespace(ns(globex)).list()).hasMessageContaining("forbidden");
    assertThatThrownBy(() -> admin.resources(Tenant.class).withName(globex).get()).hasMessageContaining("forbidden");
  }

  /** A pod that meets Pod Security "restricted", changed by {@code change}. */
  private static Pod pod(String name, Consumer<PodSpec> change) {
    Pod pod = new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withNewSecurityContext().withRunAsNonRoot(true).withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
        .endSecurityContext()
        .addNewContainer().withName("c").withImage("registry.example.com/tool:1")
        .withNewSecurityContext().withAllowPrivilegeEscalation(false).withNewCapabilities().withDrop("ALL").endCapabilities()
        .endSecurityContext().endContainer().endSpec().build();
    change.accept(pod.getSpec());
    return pod;
  }

  /** Tenants cannot write the credentials any more; a copy forged before the policy existed, or by an administrator, is still put back. */
  @Test
  void forgedDatabaseCredentialsArePutBackFromTheStore() {
    String original = DatabaseModel.password(client.secrets().inNamespace(ns(acme)).withName("db-main-credentials").get());
    client.secrets().inNamespace(ns(acme)).withName("db-main-credentials").edit(s -> {
      s.getData().put("password", Base64.getEncoder().encodeToString("chosen-by-mallory".getBytes(StandardCharsets.UTF_8)));
      return s;
    });
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).until(() -> original.equals(
        DatabaseModel.password(client.secrets().inNamespace(ns(acme)).withName("db-main-credentials").get())));
  }

  @Test
  void aNamespaceSomeoneElseMadeIsNeverTakenOverNorDeleted() {
    String squatter = uniqueName("squat");
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns(squatter)).endMetadata().build()).create();
    client.configMaps().inNamespace(ns(squatter)).resource(new ConfigMapBuilder().withNewMetadata().withName("theirs")
        .endMetadata().addToData("k", "v").build()).create();
    client.resources(Tenant.class).resource(tenant(squatter, 1, false)).create();

    Tenant degraded = awaitPhase(client, squatter, TenantPhase.Degraded, CONVERGE);
    assertThat(degraded.getStatus().getConditions().get(0).getReason()).isEqualTo("NamespaceTaken");
    assertThat(degraded.getStatus().getConditions().get(0).getMessage())
        .contains("namespace " + ns(squatter) + " exists and was not made by Tenantry");
    assertThat(client.namespaces().withName(ns(squatter)).get().getMetadata().getLabels()).doesNotContainKey("tenantry.io/tenant");

    OperatorHarness.setState(client, squatter, TenantState.Frozen);
    OperatorHarness.setState(client, squatter, TenantState.Purged);
    awaitPhase(client, squatter, TenantPhase.Purged, CONVERGE);
    assertThat(client.namespaces().withName(ns(squatter)).get().getMetadata().getDeletionTimestamp()).isNull();
    assertThat(client.configMaps().inNamespace(ns(squatter)).withName("theirs").get()).isNotNull();
    client.namespaces().withName(ns(squatter)).delete();
  }

  @Test
  void aTenantNamespaceCannotBeDeletedWhileItsTenantIsNotPurged() {
    assertThatThrownBy(() -> client.namespaces().withName(ns(acme)).delete())
        .hasMessageContaining("namespace " + ns(acme) + " holds the data of tenant " + acme
            + " and cannot be deleted while the tenant is not Purged");
    assertThat(client.namespaces().withName(ns(acme)).get().getMetadata().getDeletionTimestamp()).isNull();
  }
}
