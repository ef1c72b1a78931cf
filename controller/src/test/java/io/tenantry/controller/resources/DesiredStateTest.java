package io.tenantry.controller.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AutoscalingSpec;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.EnvVar;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.autoscaling.Autoscaling;
import io.tenantry.controller.config.Cidr;
import io.tenantry.controller.config.OperatorConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DesiredStateTest {

  private static final Map<String, DatabaseCredentials> CREDENTIALS = Map.of(
      "main", new DatabaseCredentials("tenant", "s3cret-main", "v1", "h1"),
      "cache", new DatabaseCredentials("default", "s3cret-cache", "v2", "h2"));

  static Tenant tenant() {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "10Gi"));
    spec.getDatabases().add(new DatabaseSpec("cache", DatabaseEngine.REDIS, "7.2", "1Gi"));
    AppSpec web = new AppSpec("web", "registry.example.com/acme/web", "1.4.2", 2, 8080);
    web.getEnv().add(new EnvVar("LOG_LEVEL", "info"));
    web.getRoutes().add(new AppRoute("/"));
    spec.getApps().add(web);
    spec.getApps().add(new AppSpec("worker", "registry.example.com/acme/worker", "1.4.2", 1, 9090));
    tenant.setSpec(spec);
    return tenant;
  }

  static TenantContext context(Tenant tenant, OperatorConfig config) {
    return new TenantContext(tenant, config, config.plans().get("standard"));
  }

  /** The desired state with every app at its spec's version. */
  static List<HasMetadata> desired(TenantContext ctx, Map<String, DatabaseCredentials> credentials, List<Secret> templates,
      Workloads workloads) {
    Map<String, String> versions = new java.util.HashMap<>();
    ctx.tenant().getSpec().getApps().forEach(a -> versions.put(a.getName(), a.getVersion()));
    return DesiredState.of(ctx, credentials, templates, workloads, versions, Map.of());
  }

  private static List<String> keys(List<HasMetadata> objects) {
    return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }

  @Test
  void anActiveTenantGetsItsWholeStackInDependencyOrder() {
    List<HasMetadata> objects = desired(context(tenant(), OperatorConfig.defaults()), CREDENTIALS, List.of(), Workloads.RUNNING);
    assertThat(keys(objects)).containsExactly(
        "Namespace/tenant-acme",
        "RoleBinding/tenant-admin", "RoleBinding/tenant-operator", "RoleBinding/tenant-viewer",
        "NetworkPolicy/tenant-isolation", "NetworkPolicy/allow-from-edge",
        "ResourceQuota/tenant-quota", "LimitRange/tenant-limits", "ConfigMap/tenant-identity",
        "Secret/db-main-credentials", "Secret/db-main-binding", "Service/db-main", "PodDisruptionBudget/db-main", "StatefulSet/db-main",
        "Secret/db-cache-credentials", "Secret/db-cache-binding", "Service/db-cache", "PodDisruptionBudget/db-cache", "StatefulSet/db-cache",
        "Service/app-web", "PodDisruptionBudget/app-web", "Deployment/app-web",
        "Service/app-worker", "Deployment/app-worker");
    assertThat(objects).allSatisfy(o -> {
      assertThat(o.getMetadata().getLabels()).containsEntry(Labels.MANAGED_BY, "tenantry").containsEntry(Labels.TENANT, "acme");
      assertThat(o.getMetadata().getOwnerReferences()).as("no ownerReference may cascade a deletion into customer data").isEmpty();
    });
    assertThat(objects.stream().skip(1)).allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo("tenant-acme"));
  }

  @Test
  void egressIsDeniedButForTheNamespaceDnsAndThePlansDestinationsNeverTheMetadataAddress() {
    Map<String, NetworkPolicy> policies = new java.util.LinkedHashMap<>();
    NetworkPolicyModel.networkPolicies(context(tenant(), OperatorConfig.defaults()))
        .forEach(p -> policies.put(p.getMetadata().getName(), p));
    NetworkPolicy isolation = policies.get("tenant-isolation");
    assertThat(isolation.getSpec().getPodSelector().getMatchLabels()).as("every pod").isNullOrEmpty();
    assertThat(isolation.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
    assertThat(isolation.getSpec().getIngress()).singleElement().satisfies(rule -> assertThat(rule.getFrom()).singleElement()
        .satisfies(from -> {
          assertThat(from.getPodSelector().getMatchLabels()).as("the namespace's own pods").isNullOrEmpty();
          assertThat(from.getNamespaceSelector()).isNull();
          assertThat(from.getIpBlock()).isNull();
        }));
    assertThat(isolation.getSpec().getEgress()).as("the namespace, DNS, the plan's two destinations").hasSize(4);
    assertThat(isolation.getSpec().getEgress().get(0).getTo()).singleElement().satisfies(to -> {
      assertThat(to.getPodSelector().getMatchLabels()).isNullOrEmpty();
      assertThat(to.getNamespaceSelector()).isNull();
    });
    assertThat(isolation.getSpec().getEgress().get(0).getPorts()).isNullOrEmpty();

    NetworkPolicyEgressRule dns = isolation.getSpec().getEgress().get(1);
    assertThat(dns.getTo().get(0).getNamespaceSelector().getMatchLabels()).containsExactly(Map.entry("kubernetes.io/metadata.name", "kube-system"));
    assertThat(dns.getPorts()).extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal()).containsExactly("UDP/53", "TCP/53");

    List<IPBlock> blocks = policies.values().stream().flatMap(p -> p.getSpec().getEgress().stream())
        .flatMap(r -> r.getTo().stream()).map(NetworkPolicyPeer::getIpBlock).filter(java.util.Objects::nonNull).toList();
    assertThat(blocks).extracting(IPBlock::getCidr).containsExactly("0.0.0.0/0", "::/0");
    assertThat(blocks.get(0).getExcept()).contains("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.169.254/32");
    for (IPBlock block : blocks) {
      for (Cidr metadata : Cidr.METADATA) {
        if (Cidr.parse(block.getCidr()).contains(metadata)) {
          assertThat(block.getExcept()).as(block.getCidr()).anyMatch(e -> Cidr.parse(e).contains(metadata));
        }
      }
    }
  }

  @Test
  void theEdgeReachesOnlyTheExposedAppsOnTheirPorts() {
    NetworkPolicy fromEdge = NetworkPolicyModel.networkPolicies(context(tenant(), OperatorConfig.defaults())).stream()
        .filter(p -> p.getMetadata().getName().equals("allow-from-edge")).findFirst().orElseThrow();
    assertThat(fromEdge.getSpec().getPodSelector().getMatchExpressions().get(0).getValues()).containsExactly("web");
    assertThat(fromEdge.getSpec().getIngress().get(0).getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(8080);
    assertThat(fromEdge.getSpec().getIngress().get(0).getFrom().get(0).getNamespaceSelector().getMatchLabels())
        .containsExactly(Map.entry("kubernetes.io/metadata.name", "tenantry-edge"));

    Tenant hidden = tenant();
    hidden.getSpec().getApps().forEach(a -> a.getRoutes().clear());
    assertThat(NetworkPolicyModel.networkPolicies(context(hidden, OperatorConfig.defaults())))
        .noneMatch(p -> p.getMetadata().getName().equals("allow-from-edge"));
  }

  @Test
  void withBackupsOnlyBackupPodsReachTheOperatorsTransferPort() {
    assertThat(NetworkPolicyModel.networkPolicies(context(tenant(), OperatorConfig.defaults())))
        .noneMatch(p -> p.getMetadata().getName().equals("allow-backup-transfer"));

    OperatorConfig backups = OperatorConfig.defaults().with("{backups: {enabled: true, transferPort: 9443}}");
    NetworkPolicy transfer = NetworkPolicyModel.networkPolicies(context(tenant(), backups)).stream()
        .filter(p -> p.getMetadata().getName().equals("allow-backup-transfer")).findFirst().orElseThrow();
    assertThat(transfer.getSpec().getPodSelector().getMatchLabels())
        .containsExactly(Map.entry("app.kubernetes.io/component", "backup"));
    assertThat(transfer.getSpec().getPolicyTypes()).containsExactly("Egress");
    assertThat(transfer.getSpec().getEgress()).singleElement().satisfies(rule -> {
      assertThat(rule.getTo()).singleElement().satisfies(to -> assertThat(to.getNamespaceSelector().getMatchLabels())
          .containsExactly(Map.entry("kubernetes.io/metadata.name", "tenantry-system")));
      assertThat(rule.getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(9443);
    });
  }

  @Test
  void aPlanWithoutEgressReachesNothingBeyondItsNamespaceAndDns() {
    OperatorConfig closed = OperatorConfig.parse("plans: {standard: {quota: {pods: \"5\"}}}");
    List<NetworkPolicy> policies = NetworkPolicyModel.networkPolicies(context(tenant(), closed));
    assertThat(policies).extracting(p -> p.getMetadata().getName()).containsExactly("tenant-isolation", "allow-from-edge");
    assertThat(policies.get(0).getSpec().getEgress()).as("the namespace and DNS").hasSize(2)
        .allSatisfy(rule -> assertThat(rule.getTo()).allSatisfy(to -> assertThat(to.getIpBlock()).isNull()));
  }

  @Test
  void templateSecretsAreCopiedWithTheirHashAndVersion() {
    Secret template = new io.fabric8.kubernetes.api.model.SecretBuilder()
        .withNewMetadata().withName("smtp").withNamespace("tenantry-templates")
        .addToLabels("tenantry.io/template", "true").addToAnnotations("tenantry.io/content-hash", "abc")
        .addToAnnotations("tenantry.io/secret-version", "7").endMetadata()
        .withType("Opaque").addToData("password", "c2VjcmV0").build();
    List<HasMetadata> objects = desired(context(tenant(), OperatorConfig.defaults()), CREDENTIALS, List.of(template),
        Workloads.RUNNING);
    Secret copy = (Secret) objects.stream().filter(o -> o.getMetadata().getName().equals("smtp")).findFirst().orElseThrow();
    assertThat(copy.getMetadata().getNamespace()).isEqualTo("tenant-acme");
    assertThat(copy.getMetadata().getLabels()).containsEntry("tenantry.io/template", "copy").containsEntry(Labels.TENANT, "acme");
    assertThat(copy.getMetadata().getAnnotations()).containsEntry("tenantry.io/content-hash", "abc")
        .containsEntry("tenantry.io/secret-version", "7");
    assertThat(copy.getData()).isEqualTo(template.getData());
  }

  @Test
  void theNamespaceEnforcesThePodSecurityRestrictedStandard() {
    Namespace namespace = NamespaceModel.namespace(context(tenant(), OperatorConfig.defaults()));
    assertThat(namespace.getMetadata().getLabels())
        .containsEntry("pod-security.kubernetes.io/enforce", "restricted")
        .containsEntry("pod-security.kubernetes.io/enforce-version", "latest");
  }

  @Test
  void theNamespacePrefixComesFromTheConfiguration() {
    OperatorConfig config = OperatorConfig.defaults();
    config = config.with("namespacePrefix: customer-");
    assertThat(NamespaceModel.namespace(context(tenant(), config)).getMetadata().getName()).isEqualTo("customer-acme");
  }

  @Test
  void anAppDeploymentRunsItsVersionAsImageTagWithRestrictedSecurity() {
    Deployment deployment = AppModel.deployment(context(tenant(), OperatorConfig.defaults()), tenant().getSpec().getApps().get(0), "1.4.2", 2,
        "hash");
    var pod = deployment.getSpec().getTemplate();
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo("registry.example.com/acme/web:1.4.2");
    assertThat(pod.getMetadata().getLabels()).containsEntry(Labels.VERSION, "1.4.2");
    assertThat(deployment.getSpec().getSelector().getMatchLabels()).doesNotContainKey(Labels.VERSION);
    assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(pod.getSpec().getContainers().get(0).getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(pod.getSpec().getContainers().get(0).getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(pod.getSpec().getContainers().get(0).getEnv()).first()
        .satisfies(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("LOG_LEVEL=info"));
  }

  @Test
  void aDatabaseReadsItsPasswordFromItsCredentialsSecret() {
    TenantContext ctx = context(tenant(), OperatorConfig.defaults());
    DatabaseSpec main = tenant().getSpec().getDatabases().get(0);
    StatefulSet statefulSet = DatabaseModel.statefulSet(ctx, main, 1, new DatabaseVolume(main.getVersion(), DatabaseVolume.FIRST_CLAIM));
    var container = statefulSet.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("docker.io/library/postgres:16.4");
    assertThat(container.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("POSTGRES_PASSWORD");
      assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("db-main-credentials");
    });
    assertThat(statefulSet.getSpec().getVolumeClaimTemplates().get(0).getSpec().getResources().getRequests())
        .containsEntry("storage", new Quantity("10Gi"));
    Secret credentials = DatabaseModel.credentials(ctx, main, CREDENTIALS.get("main"));
    assertThat(DatabaseModel.password(credentials)).isEqualTo("s3cret-main");
    assertThat(DatabaseModel.username(credentials)).isEqualTo("tenant");
    assertThat(credentials.getMetadata().getAnnotations()).containsEntry("tenantry.io/secret-version", "v1")
        .containsEntry("tenantry.io/content-hash", "h1");
  }

  @Test
  void frozenScalesWorkloadsToZeroAndKeepsEverythingElse() {
    List<HasMetadata> objects = desired(context(tenant(), OperatorConfig.defaults()), CREDENTIALS, List.of(), Workloads.SCALED_TO_ZERO);
    assertThat(objects).filteredOn(o -> o instanceof Deployment)
        .allSatisfy(o -> assertThat(((Deployment) o).getSpec().getReplicas()).isZero()).hasSize(2);
    assertThat(objects).filteredOn(o -> o instanceof StatefulSet)
        .allSatisfy(o -> assertThat(((StatefulSet) o).getSpec().getReplicas()).isZero()).hasSize(2);
    assertThat(keys(objects)).contains("Secret/db-main-credentials", "Namespace/tenant-acme").doesNotContain("PodDisruptionBudget/app-web");
  }

  @Test
  void archivedKeepsNamespaceGuardrailsAndSecretsOnly() {
    List<HasMetadata> objects = desired(context(tenant(), OperatorConfig.defaults()), CREDENTIALS, List.of(), Workloads.REMOVED);
    assertThat(objects).noneMatch(o -> o instanceof Deployment || o instanceof StatefulSet);
    assertThat(keys(objects)).contains("Secret/db-main-credentials", "Secret/db-cache-credentials", "ResourceQuota/tenant-quota");
  }

  @Test
  void externallyManagedReplicasAreLeftOutOfTheDeploymentAndHandedOverFromOne() {
    OperatorConfig config = OperatorConfig.defaults();
    config = config.with("appReplicasManagedExternally: true");
    assertThat(config.warnings()).singleElement().asString().contains("spec.apps[].autoscaling");
    List<HasMetadata> objects = desired(context(tenant(), config), CREDENTIALS, List.of(), Workloads.RUNNING);
    assertThat(objects).filteredOn(o -> o instanceof Deployment).allSatisfy(o -> {
      assertThat(((Deployment) o).getSpec().getReplicas()).isNull();
      assertThat(o.getMetadata().getAnnotations()).containsEntry(Autoscaling.MIN_REPLICAS, "1");
    });
    assertThat(OperatorConfig.defaults().warnings()).isEmpty();
  }

  @Test
  void anAutoscaledAppGetsAnAutoscalerAfterItsDeploymentWhichCarriesNoReplicasUnlessStopped() {
    Tenant tenant = tenant();
    AppSpec web = tenant.getSpec().getApps().get(0);
    web.setReplicas(null);
    web.setAutoscaling(new AutoscalingSpec(2, 40, 70));
    TenantContext ctx = context(tenant, OperatorConfig.defaults());

    List<HasMetadata> running = desired(ctx, CREDENTIALS, List.of(), Workloads.RUNNING);
    assertThat(keys(running)).containsSubsequence("Deployment/app-web", "HorizontalPodAutoscaler/app-web");
    assertThat(keys(running)).contains("PodDisruptionBudget/app-web");
    Deployment deployment = (Deployment) running.get(keys(running).indexOf("Deployment/app-web"));
    assertThat(deployment.getSpec().getReplicas()).isNull();
    assertThat(deployment.getMetadata().getAnnotations()).containsEntry(Autoscaling.MIN_REPLICAS, "2");
    HorizontalPodAutoscaler hpa = (HorizontalPodAutoscaler) running.get(keys(running).indexOf("HorizontalPodAutoscaler/app-web"));
    assertThat(hpa.getSpec().getMaxReplicas()).as("the plan's 10").isEqualTo(10);
    assertThat(hpa.getMetadata().getLabels()).containsEntry(Labels.MANAGED_BY, Labels.MANAGER);
    Deployment worker = (Deployment) running.get(keys(running).indexOf("Deployment/app-worker"));
    assertThat(worker.getSpec().getReplicas()).as("a fixed app keeps its replicas").isEqualTo(1);

    List<HasMetadata> frozen = desired(ctx, CREDENTIALS, List.of(), Workloads.SCALED_TO_ZERO);
    Deployment stopped = (Deployment) frozen.get(keys(frozen).indexOf("Deployment/app-web"));
    assertThat(stopped.getSpec().getReplicas()).isZero();
    assertThat(stopped.getMetadata().getAnnotations()).doesNotContainKey(Autoscaling.MIN_REPLICAS);
    assertThat(keys(frozen)).as("the HPA stays: it does not scale a Deployment at zero").contains("HorizontalPodAutoscaler/app-web");

    assertThat(keys(desired(ctx, CREDENTIALS, List.of(), Workloads.REMOVED))).noneMatch(k -> k.startsWith("HorizontalPodAutoscaler"));
  }

  @ParameterizedTest
  @CsvSource({"POSTGRES, /var/lib/postgresql/data, /var/run/postgresql /tmp",
      "MYSQL, /var/lib/mysql, /var/run/mysqld /tmp",
      "REDIS, /data, /tmp"})
  void everyDatabaseRunsOnAReadOnlyRootWritingOnlyItsVolumeAndSizeLimitedScratch(DatabaseEngine engine, String data,
      String scratch) {
    DatabaseSpec db = new DatabaseSpec("db", engine, "1", "1Gi");
    PodSpec pod = DatabaseModel.statefulSet(context(tenant(), OperatorConfig.defaults()), db, 1, new DatabaseVolume(db.getVersion(), DatabaseVolume.FIRST_CLAIM)).getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    Map<String, String> mounts = new java.util.TreeMap<>();
    container.getVolumeMounts().forEach(m -> mounts.put(m.getMountPath(), m.getName()));
    assertThat(mounts).containsEntry(data, "data");
    List<String> scratchDirs = List.of(scratch.split(" "));
    assertThat(mounts.keySet()).containsExactlyInAnyOrderElementsOf(
        java.util.stream.Stream.concat(java.util.stream.Stream.of(data), scratchDirs.stream()).toList());
    assertThat(pod.getVolumes()).hasSize(scratchDirs.size()).allSatisfy(v -> {
      assertThat(mounts).containsValue(v.getName());
      assertThat(v.getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("256Mi"));
    });
  }

  @Test
  void thePlanSetsQuotaAndLimitRange() {
    TenantContext ctx = context(tenant(), OperatorConfig.defaults());
    ResourceQuota quota = QuotaModel.resourceQuota(ctx);
    assertThat(quota.getSpec().getHard()).containsEntry("pods", new Quantity("50")).containsEntry("requests.cpu", new Quantity("4"))
        .containsEntry("requests.ephemeral-storage", new Quantity("8Gi")).containsEntry("limits.ephemeral-storage", new Quantity("16Gi"));
    LimitRange limits = QuotaModel.limitRange(ctx);
    assertThat(limits.getSpec().getLimits().get(0).getDefaultRequest()).containsEntry("memory", new Quantity("128Mi"))
        .containsEntry("ephemeral-storage", new Quantity("256Mi"));
    assertThat(limits.getSpec().getLimits().get(0).getDefault()).containsEntry("ephemeral-storage", new Quantity("1Gi"));
  }

  @Test
  void eachAccessLevelIsTheInstalledClusterRoleBoundToTheTenantsGroupInItsNamespace() {
    List<RoleBinding> bindings = RbacModel.roleBindings(context(tenant(), OperatorConfig.defaults()));
    assertThat(bindings).extracting(b -> b.getMetadata().getNamespace(), b -> b.getMetadata().getName(),
            b -> b.getRoleRef().getKind(), b -> b.getRoleRef().getName(), b -> b.getSubjects().get(0).getName())
        .containsExactly(
            tuple("tenant-acme", "tenant-admin", "ClusterRole", "tenantry-tenant-admin", "tenantry:acme:admin"),
            tuple("tenant-acme", "tenant-operator", "ClusterRole", "tenantry-tenant-operator", "tenantry:acme:operator"),
            tuple("tenant-acme", "tenant-viewer", "ClusterRole", "tenantry-tenant-viewer", "tenantry:acme:viewer"));
    assertThat(bindings).allSatisfy(b -> {
      assertThat(b.getSubjects()).singleElement().satisfies(s -> assertThat(s.getKind()).isEqualTo("Group"));
      assertThat(b.getRoleRef().getApiGroup()).isEqualTo("rbac.authorization.k8s.io");
    });
  }

  @ParameterizedTest
  @CsvSource({"Frozen", "Archived"})
  void aTenantThatIsNotRunningBindsEveryLevelAsViewerOnly(TenantState state) {
    Tenant tenant = tenant();
    tenant.getSpec().setState(state);
    assertThat(RbacModel.roleBindings(context(tenant, OperatorConfig.defaults()))).singleElement().satisfies(b -> {
      assertThat(b.getMetadata().getName()).isEqualTo("tenant-viewer");
      assertThat(b.getRoleRef().getName()).isEqualTo("tenantry-tenant-viewer");
      assertThat(b.getSubjects()).extracting(s -> s.getKind() + "/" + s.getName())
          .containsExactly("Group/tenantry:acme:admin", "Group/tenantry:acme:operator", "Group/tenantry:acme:viewer");
    });
  }

  @Test
  void thePlansObjectCountsBoundWhatATenantCanStoreWithDefaultsForThoseItOmits() {
    OperatorConfig config = OperatorConfig.defaults().with("""
        plans: {standard: {quota: {pods: "5", count/secrets: "7"}}}""");
    ResourceQuota quota = QuotaModel.resourceQuota(context(tenant(), config));
    assertThat(quota.getSpec().getHard()).containsEntry("pods", new Quantity("5")).containsEntry("count/secrets", new Quantity("7"))
        .containsEntry("count/configmaps", new Quantity("100")).containsEntry("count/services", new Quantity("50"))
        .containsEntry("count/serviceaccounts", new Quantity("20")).containsEntry("count/deployments.apps", new Quantity("50"))
        .containsEntry("count/statefulsets.apps", new Quantity("20")).containsEntry("count/jobs.batch", new Quantity("100"))
        .containsEntry("count/replicasets.apps", new Quantity("200"));
  }

  @Test
  void everyPodTheOperatorMakesAsksOfTheNodesWhatThePlanGivesAndTheNamespaceSaysTheSameToThePolicy() {
    OperatorConfig config = OperatorConfig.defaults().with("""
        plans: {standard: {priorityClassName: tenant-gold, hostUsers: false,
                           tolerations: [{key: dedicated, value: gold, effect: NoSchedule}, {key: spot, operator: Exists}]}}""");
    TenantContext ctx = context(tenant(), config);
    List<HasMetadata> objects = desired(ctx, CREDENTIALS, List.of(), Workloads.RUNNING);
    List<PodSpec> pods = new java.util.ArrayList<>();
    objects.stream().filter(o -> o instanceof Deployment).forEach(o -> pods.add(((Deployment) o).getSpec().getTemplate().getSpec()));
    objects.stream().filter(o -> o instanceof StatefulSet).forEach(o -> pods.add(((StatefulSet) o).getSpec().getTemplate().getSpec()));
    assertThat(pods).hasSize(4).allSatisfy(pod -> {
      assertThat(pod.getPriorityClassName()).isEqualTo("tenant-gold");
      assertThat(pod.getHostUsers()).isFalse();
      assertThat(pod.getTolerations()).extracting(t -> t.getKey() + "|" + t.getOperator() + "|" + t.getValue() + "|" + t.getEffect())
          .containsExactly("dedicated|Equal|gold|NoSchedule", "spot|Exists|null|null");
    });
    assertThat(NamespaceModel.namespace(ctx).getMetadata().getAnnotations())
        .containsEntry("tenantry.io/pod-priority-class", "tenant-gold")
        .containsEntry("tenantry.io/pod-tolerations", "dedicated|Equal|gold|NoSchedule,spot|Exists||")
        .containsEntry("tenantry.io/pod-host-users", "false");
  }

  @Test
  void byDefaultPodsAskForNoPriorityNoTolerationAndTheHostsUsers() {
    TenantContext ctx = context(tenant(), OperatorConfig.defaults());
    Deployment web = (Deployment) desired(ctx, CREDENTIALS, List.of(), Workloads.RUNNING).stream()
        .filter(o -> o instanceof Deployment).findFirst().orElseThrow();
    PodSpec pod = web.getSpec().getTemplate().getSpec();
    assertThat(pod.getPriorityClassName()).isNull();
    assertThat(pod.getTolerations()).isEmpty();
    assertThat(pod.getHostUsers()).isNull();
    assertThat(NamespaceModel.namespace(ctx).getMetadata().getAnnotations()).containsEntry("tenantry.io/pod-priority-class", "")
        .containsEntry("tenantry.io/pod-tolerations", "").containsEntry("tenantry.io/pod-host-users", "true");
  }

  @Test
  void everyDatabaseNeedsAPassword() {
    assertThatThrownBy(() -> desired(context(tenant(), OperatorConfig.defaults()),
        Map.of("main", CREDENTIALS.get("main")), List.of(), Workloads.RUNNING))
        .hasMessage("no credentials for database cache");
  }

  @Test
  void namesAreValidDnsLabelsUnderATurkishDefaultLocale() {
    Locale before = Locale.getDefault();
    Locale.setDefault(Locale.forLanguageTag("tr-TR"));
    try {
      List<HasMetadata> objects = desired(context(tenant(), OperatorConfig.defaults()), CREDENTIALS, List.of(),
          Workloads.RUNNING);
      StatefulSet cache = objects.stream().filter(o -> o instanceof StatefulSet && o.getMetadata().getName().equals("db-cache"))
          .map(StatefulSet.class::cast).findFirst().orElseThrow();
      // Under tr-TR, "REDIS".toLowerCase() is "redıs" (dotless i): not a DNS label, refused by the API server.
      assertThat(cache.getSpec().getTemplate().getSpec().getContainers().get(0).getName()).isEqualTo("redis");
      for (HasMetadata object : objects) {
        assertThat(object.getMetadata().getName()).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
      }
    } finally {
      Locale.setDefault(before);
    }
  }
}
