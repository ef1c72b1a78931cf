package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.Helm.find;
import static io.tenantry.controller.operator.Helm.ofKind;
import static io.tenantry.controller.operator.Helm.render;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.RbacModel;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Helm chart (deploy/helm/tenantry) without a cluster, in seconds: helm lint and helm template
 * pass, the committed plain manifests are its render and its CRDs are the build's, bad values are
 * refused naming the value, and what it renders gives the operator what it needs and no more.
 */
class HelmChartTest {

  private static final List<String> GUARDRAILS = List.of("resourcequotas", "limitranges", "networkpolicies", "roles",
      "rolebindings", "clusterroles", "clusterrolebindings");
  private static final List<String> WRITES = List.of("create", "update", "patch", "delete", "deletecollection", "*");
  private static final String[] EVERY_PART = {"--set", "allocation.tokenSecret.name=allocation-token",
      "--set", "config.allocation.enabled=true", "--set", "config.fleet.datastoreProjectId=acme-fleet",
      "--set", "metrics.serviceMonitor.enabled=true", "--set", "metrics.podMonitor.enabled=true"};

  @Test
  void lintAndTemplatePassWithTheDefaultsAndWithEveryOptionalPart() {
    Helm.run(null, List.of("lint", "--strict", Helm.chart().toString())).ok();
    List<String> everyPart = new ArrayList<>(List.of("lint", "--strict", Helm.chart().toString(), "--namespace", Helm.NAMESPACE));
    everyPart.addAll(List.of(EVERY_PART));
    Helm.run(null, everyPart).ok();
    assertThat(Helm.template(EVERY_PART).ok().out()).contains("kind: ServiceMonitor", "kind: PodMonitor");
  }

  @Test
  void theCommittedPlainManifestsAreTheChartsRender() {
    Helm.Result check = Helm.exec(List.of("bash", Helm.root().resolve("tools/render-manifests.sh").toString(), "--check"));
    assertThat(check.exit()).as("deploy/manifests/tenantry.yaml is stale:%n%s%s", check.err(), check.out()).isZero();
  }

  @Test
  void theChartsCrdsAreTheOnesTheBuildGenerates() throws IOException {
    for (String crd : List.of("tenants.tenantry.io-v1.yml", "sparepools.tenantry.io-v1.yml")) {
      String generated;
      try (InputStream in = Tenant.class.getResourceAsStream("/META-INF/fabric8/" + crd)) {
        generated = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      assertThat(Files.readString(Helm.chart().resolve("generated").resolve(crd)))
          .as("deploy/helm/tenantry/generated/%s differs from the CRD the build generates: run tools/render-manifests.sh", crd)
          .isEqualTo(generated);
    }
  }

  @ParameterizedTest(name = "{0} is refused naming {1}")
  @CsvSource(delimiter = '|', value = {
      "--set-string=replicas=two                                | at '/replicas': got string, want integer",
      "--set=config.routing.mode=bogus                          | at '/config/routing/mode': value must be one of",
      "--set=config.workers=0                                   | at '/config/workers': minimum",
      "--set=config.secretStore.maxTemplateDeletionShare=1.5    | at '/config/secretStore/maxTemplateDeletionShare'",
      "--set=config.plans.standard.egress[0].ports[0]=70000     | at '/config/plans/standard/egress/0/ports/0'",
      "--set=config.operatorNamespace=elsewhere                 | 'operatorNamespace' not allowed",
      "--set=config.leaderElection.leaseDurationSecond=15       | 'leaseDurationSecond' not allowed",
      "--set=config.backups.purgeDelay=7days                    | at '/config/backups/purgeDelay'",
      "--set=config.backups.purgeDelay=0d0h                     | at '/config/backups/purgeDelay'",
      "--set=replica=3                                          | 'replica' not allowed",
      "--set=image.pullPolicy=Sometimes                         | at '/image/pullPolicy'",
      "--set=config.allocation.enabled=true                     | at '/allocation/tokenSecret/name': minLength",
  })
  void badValuesAreRefusedNamingTheValue(String value, String message) {
    Helm.Result result = Helm.template(value);
    assertThat(result.exit()).isNotZero();
    assertThat(result.err()).contains("values don't meet the specifications of the schema").contains(message);
  }

  @Test
  void theTenantRolesAreTheClusterRolesTheOperatorBindsAndNoneMayChangeTheGuardrails() {
    List<JsonNode> objects = render();
    List<JsonNode> roles = ofKind(objects, "ClusterRole").stream()
        .filter(r -> "tenant-role".equals(r.at("/metadata/labels/app.kubernetes.io~1component").asText())).toList();
    assertThat(roles).extracting(r -> r.at("/metadata/name").asText())
        .containsExactlyElementsOf(RbacModel.ACCESS_LEVELS.stream().map(RbacModel::clusterRole).toList());
    assertThat(roles).allSatisfy(role -> {
      assertThat(role.at("/metadata/annotations/helm.sh~1resource-policy").asText()).isEqualTo("keep");
      for (JsonNode rule : role.get("rules")) {
        List<String> resources = strings(rule.get("resources"));
        List<String> verbs = strings(rule.get("verbs"));
        if (verbs.stream().anyMatch(WRITES::contains)) {
          assertThat(resources).as("written by %s", role.at("/metadata/name").asText())
              .doesNotContainAnyElementsOf(GUARDRAILS).doesNotContain("endpoints", "endpointslices", "pods/status", "*");
        }
        assertThat(verbs).doesNotContain("*", "escalate", "bind", "impersonate");
      }
    });
    assertThat(strings(roles.get(2).get("rules"), "verbs")).containsOnly("get", "list", "watch");
    assertThat(roles).filteredOn(r -> strings(r.get("rules"), "resources").contains("pods/exec"))
        .extracting(r -> r.at("/metadata/name").asText()).containsExactly("tenantry-tenant-admin");
  }

  @Test
  void theOperatorMayBindOnlyTheTenantRolesAndMayNotEscalate() {
    List<JsonNode> objects = render();
    JsonNode operator = find(objects, "ClusterRole", "tenantry-operator");
    for (JsonNode rule : operator.get("rules")) {
      assertThat(strings(rule.get("verbs"))).doesNotContain("*", "escalate", "impersonate");
      assertThat(strings(rule.get("resources"))).doesNotContain("*", "clusterrolebindings");
      if (strings(rule.get("apiGroups")).contains("rbac.authorization.k8s.io")) {
        List<String> resources = strings(rule.get("resources"));
        if (resources.contains("clusterroles")) {
          assertThat(strings(rule.get("verbs"))).containsExactly("bind");
          assertThat(strings(rule.get("resourceNames")))
              .containsExactlyElementsOf(RbacModel.ACCESS_LEVELS.stream().map(RbacModel::clusterRole).toList());
        } else if (resources.contains("roles")) {
          assertThat(strings(rule.get("verbs"))).as("only the Roles earlier versions made").containsExactly("delete");
          assertThat(strings(rule.get("resourceNames")))
              .containsExactlyElementsOf(RbacModel.ACCESS_LEVELS.stream().map(Names::role).toList());
        } else {
          assertThat(resources).containsExactly("rolebindings");
        }
      }
    }
    JsonNode local = find(objects, "Role", "tenantry-operator");
    assertThat(local.at("/metadata/namespace").asText()).isEqualTo(Helm.NAMESPACE);
    assertThat(strings(local.get("rules"), "resources")).containsExactlyInAnyOrder("leases", "pods");
    assertThat(strings(operator.get("rules"), "resources")).doesNotContain("leases", "pods");
    JsonNode binding = find(objects, "ClusterRoleBinding", "tenantry-operator");
    assertThat(binding.at("/subjects/0/name").asText()).isEqualTo("tenantry-operator");
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(Helm.NAMESPACE);
  }

  @Test
  void theAdmissionPoliciesTrustTheReleasesServiceAccount() {
    List<JsonNode> objects = render("--namespace", "ops", "--set", "serviceAccount.name=tenants");
    assertThat(find(objects, "ValidatingAdmissionPolicy", "tenantry-managed-labels").at("/spec/matchConditions/0/expression")
        .asText()).contains("'system:serviceaccount:ops:tenants'");
    assertThat(find(objects, "ValidatingAdmissionPolicy", "tenantry-operator-bindings").at("/spec/matchConditions/0/expression")
        .asText()).contains("'system:serviceaccount:ops:tenants'");
    for (String policy : List.of("tenantry-operator-namespaces", "tenantry-operator-writes")) {
      assertThat(find(objects, "ValidatingAdmissionPolicy", policy).at("/spec/matchConditions/0/expression").asText())
          .contains("'system:serviceaccount:ops:tenants'");
    }
    assertThat(find(objects, "ValidatingAdmissionPolicy", "tenantry-operator-writes").at("/spec/validations/0/expression").asText())
        .contains("'ops'");
    assertThat(ofKind(objects, "ValidatingAdmissionPolicyBinding")).hasSize(ofKind(objects, "ValidatingAdmissionPolicy").size())
        .extracting(b -> b.at("/spec/validationActions/0").asText()).containsOnly("Deny");
    assertThat(render("--set", "admissionPolicies.enabled=false")).noneMatch(o -> o.get("kind").asText().startsWith("Validating"));
  }

  @Test
  void theOperatorsAccountIsConfinedToTheNamespacesTheConfigurationNames() {
    List<JsonNode> objects = render("--set", "config.namespacePrefix=cust-", "--set", "config.templateNamespace=tmpl",
        "--set", "config.edgeNamespace=gateway");
    String namespaces = find(objects, "ValidatingAdmissionPolicy", "tenantry-operator-namespaces").at("/spec/validations").toString();
    assertThat(namespaces).contains("'cust-' + variables.tenant").contains("request.name == 'tmpl'").contains("startsWith('cust-')");
    String writes = find(objects, "ValidatingAdmissionPolicy", "tenantry-operator-writes").at("/spec/validations/0/expression").asText();
    assertThat(writes).contains("request.namespace == 'tmpl'").contains("request.namespace == 'gateway'");
    assertThat(find(objects, "ValidatingAdmissionPolicy", "tenantry-operator-writes").at("/spec/variables/1/expression").asText())
        .contains("'cust-' + variables.namespaceLabels['tenantry.io/tenant']");
    assertThat(objects).filteredOn(o -> o.get("kind").asText().startsWith("ValidatingAdmissionPolicy"))
        .as("no policy reads a parameters object: kube-apiserver can lose a ConfigMap paramKind for good")
        .noneMatch(o -> o.at("/spec").has("paramKind") || o.at("/spec").has("paramRef"));
  }

  @Test
  void theReservedSubdomainsPolicyHoldsTheOperatorsListOrTheOneTheValuesGive() {
    String byDefault = find(render(), "ValidatingAdmissionPolicy", "tenantry-reserved-subdomains").at("/spec/variables/2/expression")
        .asText();
    assertThat(byDefault).isEqualTo("'," + String.join(",", OperatorConfig.defaults().routing().reservedSubdomains()) + ",'");
    assertThat(find(render("--set", "config.routing.reservedSubdomains={www,shop}"), "ValidatingAdmissionPolicy",
        "tenantry-reserved-subdomains").at("/spec/variables/2/expression").asText()).isEqualTo("',www,shop,'");
    assertThat(find(render(), "ValidatingAdmissionPolicy", "tenantry-reserved-subdomains").has("paramKind")).isFalse();
  }

  @Test
  void backupsAreOnAndEveryReplicaServesTheTransferEndpointToBackupPodsAlone() {
    List<JsonNode> off = render("--set", "config.backups.enabled=false");
    assertThat(OperatorConfig.parse(configOf(off)).backups().enabled()).isFalse();
    assertThat(off).noneMatch(o -> o.at("/metadata/name").asText().equals("tenantry-operator-transfer"));
    Helm.Result noVolume = Helm.template("--set", "backups.existingClaim=");
    assertThat(noVolume.exit()).as("a file: store needs a volume").isNotZero();
    assertThat(noVolume.err()).contains("backups.existingClaim: required");

    List<JsonNode> objects = render(); // the defaults
    assertThat(OperatorConfig.parse(configOf(objects)).backups().enabled()).isTrue();
    OperatorConfig config = OperatorConfig.parse(configOf(objects));
    assertThat(config.backups().location()).isEqualTo("file:/var/lib/tenantry/backups");
    assertThat(config.backupTransferUrl()).isEqualTo("http://tenantry-operator-transfer." + Helm.NAMESPACE
        + ".svc.cluster.local:8082");
    assertThat(config.backups().agentImage()).isEqualTo("tenantry-operator:" + chartAppVersion());
    JsonNode pod = find(objects, "Deployment", "tenantry-operator").at("/spec/template/spec");
    assertThat(pod.at("/containers/0/ports")).extracting(p -> p.get("name").asText() + "=" + p.get("containerPort").asInt())
        .containsExactly("http=8080", "probes=8081", "transfer=8082");
    assertThat(pod.at("/volumes")).anySatisfy(v -> assertThat(v.at("/persistentVolumeClaim/claimName").asText())
        .isEqualTo("tenantry-backups"));
    JsonNode service = find(objects, "Service", "tenantry-operator-transfer");
    assertThat(service.at("/spec/selector").has("tenantry.io/leader")).as("every replica").isFalse();
    assertThat(service.at("/spec/ports/0/port").asInt()).isEqualTo(8082);
    JsonNode ingress = find(objects, "NetworkPolicy", "tenantry-operator").at("/spec/ingress");
    assertThat(ingress).anySatisfy(rule -> {
      assertThat(rule.at("/ports/0/port").asInt()).isEqualTo(8082);
      assertThat(rule.at("/from/0/podSelector/matchLabels/app.kubernetes.io~1component").asText()).isEqualTo("backup");
    });

    OperatorConfig bucket = OperatorConfig.parse(configOf(render("--set", "backups.existingClaim=",
        "--set", "config.backups.location=gs://acme-backups")));
    assertThat(bucket.backups().location()).isEqualTo("gs://acme-backups");
  }

  @Test
  void theConfigurationIsOneTheOperatorAcceptsWithWhatTheChartDecides() {
    OperatorConfig defaults = OperatorConfig.parse(configOf(render()));
    assertThat(defaults.operatorNamespace()).isEqualTo(Helm.NAMESPACE);
    assertThat(defaults.secretStore().location()).isEqualTo("file:/var/lib/tenantry/secret-store");
    assertThat(defaults.leaderElection().enabled()).isTrue();

    List<JsonNode> objects = render(EVERY_PART[0], EVERY_PART[1], EVERY_PART[2], EVERY_PART[3], EVERY_PART[4], EVERY_PART[5],
        "--set", "config.workers=8", "--set", "config.routing.baseDomain=apps.example.com",
        "--set", "config.secretStore.location=gs://acme-secrets", "--set", "config.secretStore.kmsKeyName=k",
        "--set", "secretStore.existingClaim=", "--set", "config.backups.location=gs://acme-backups",
        "--set", "backups.existingClaim=");
    OperatorConfig config = OperatorConfig.parse(configOf(objects));
    assertThat(config.workers()).isEqualTo(8);
    assertThat(config.routing().baseDomain()).isEqualTo("apps.example.com");
    assertThat(config.secretStore().location()).isEqualTo("gs://acme-secrets");
    assertThat(config.allocation().tokenFile()).isEqualTo("/etc/tenantry/allocation/token");
    JsonNode pod = find(objects, "Deployment", "tenantry-operator").at("/spec/template/spec");
    assertThat(pod.at("/volumes")).anySatisfy(v -> assertThat(v.at("/secret/secretName").asText()).isEqualTo("allocation-token"));
    assertThat(pod.at("/volumes")).noneSatisfy(v -> assertThat(v.has("persistentVolumeClaim")).isTrue());
    assertThat(pod.at("/containers/0/volumeMounts"))
        .anySatisfy(m -> assertThat(m.get("mountPath").asText()).isEqualTo("/etc/tenantry/allocation"));
  }

  @Test
  void theSchemaDescribesEverySettingOfTheOperatorButThoseTheChartSets() throws IOException {
    JsonNode schema = new ObjectMapper().readTree(Helm.chart().resolve("values.schema.json").toFile())
        .at("/properties/config");
    Set<String> inSchema = new TreeSet<>();
    Set<String> inConfig = new TreeSet<>();
    schemaPaths(schema, "", inSchema);
    configPaths(OperatorConfig.class, "", inConfig);
    inConfig.removeAll(Set.of("operatorNamespace", "allocation.tokenFile"));
    assertThat(inSchema).as("values.schema.json's config, against OperatorConfig").isEqualTo(inConfig);
  }

  @Test
  void theOperatorRunsRestrictedOnTwoReplicasSpreadAcrossNodes() {
    List<JsonNode> objects = render();
    JsonNode deployment = find(objects, "Deployment", "tenantry-operator");
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    JsonNode pod = deployment.at("/spec/template/spec");
    JsonNode container = pod.at("/containers/0");
    assertThat(container.get("image").asText()).isEqualTo("tenantry-operator:" + chartAppVersion());
    assertThat(render("--set", "image.repository=registry.example.com/tenantry", "--set", "image.tag=1.2.3").stream()
        .filter(o -> "Deployment".equals(o.get("kind").asText())).findFirst().orElseThrow()
        .at("/spec/template/spec/containers/0/image").asText()).isEqualTo("registry.example.com/tenantry:1.2.3");
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.at("/securityContext/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
    assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(container.at("/securityContext/allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(strings(container.at("/securityContext/capabilities/drop"))).containsExactly("ALL");
    assertThat(container.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(container.at("/resources/limits/memory").asText()).isNotEmpty();
    assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("probes");
    assertThat(container.at("/ports")).extracting(p -> p.get("name").asText() + "=" + p.get("containerPort").asInt())
        .containsExactly("http=8080", "probes=8081", "transfer=8082");
    assertThat(container.at("/volumeMounts")).anySatisfy(m -> assertThat(m.get("mountPath").asText()).isEqualTo("/tmp"));
    assertThat(pod.at("/volumes")).anySatisfy(v -> assertThat(v.has("emptyDir") && "tmp".equals(v.get("name").asText())).isTrue());
    assertThat(container.at("/env")).extracting(e -> e.get("name").asText() + "=" + e.at("/valueFrom/fieldRef/fieldPath").asText())
        .contains("POD_NAME=metadata.name", "POD_NAMESPACE=metadata.namespace");
    assertThat(pod.at("/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/podAffinityTerm/topologyKey")
        .asText()).isEqualTo("kubernetes.io/hostname");
    assertThat(pod.at("/topologySpreadConstraints")).extracting(c -> c.get("topologyKey").asText())
        .containsExactly("kubernetes.io/hostname", "topology.kubernetes.io/zone");
    JsonNode pdb = find(objects, "PodDisruptionBudget", "tenantry-operator");
    assertThat(pdb.at("/spec/maxUnavailable").asInt()).isEqualTo(1);
    assertThat(pdb.at("/spec/selector/matchLabels")).isEqualTo(deployment.at("/spec/selector/matchLabels"));
  }

  @Test
  void theAllocationServiceSelectsTheLeadersPodAndTheNetworkPolicyAdmitsOnlyItsPorts() {
    List<JsonNode> objects = render();
    JsonNode deployment = find(objects, "Deployment", "tenantry-operator");
    JsonNode service = find(objects, "Service", "tenantry-operator");
    assertThat(service.at("/spec/selector/" + LeaderPod.LABEL.replace("/", "~1")).asText()).isEqualTo("true");
    deployment.at("/spec/selector/matchLabels").fields()
        .forEachRemaining(l -> assertThat(service.at("/spec/selector").get(l.getKey())).isEqualTo(l.getValue()));
    assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo("http");
    JsonNode policy = find(objects, "NetworkPolicy", "tenantry-operator");
    assertThat(strings(policy.at("/spec/policyTypes"))).containsExactly("Ingress");
    assertThat(policy.at("/spec/ingress")).extracting(i -> i.at("/ports/0/port").asInt()).containsExactly(8080, 8081, 8082);
    assertThat(policy.at("/spec/podSelector/matchLabels")).isEqualTo(deployment.at("/spec/selector/matchLabels"));
  }

  @Test
  void theCrdsAreKeptWhenTheReleaseIsUninstalled() {
    List<JsonNode> crds = ofKind(render(), "CustomResourceDefinition");
    assertThat(crds).extracting(c -> c.at("/metadata/name").asText())
        .containsExactlyInAnyOrder("tenants.tenantry.io", "sparepools.tenantry.io");
    assertThat(crds).allSatisfy(c -> assertThat(c.at("/metadata/annotations/helm.sh~1resource-policy").asText()).isEqualTo("keep"));
    assertThat(ofKind(render("--set", "crds.install=false"), "CustomResourceDefinition")).isEmpty();
  }

  @Test
  void thePrometheusRuleHoldsTheGroupsOfTheAlertsFile() throws IOException {
    Path alerts = Helm.chart().resolve("files/tenantry-alerts.yaml");
    if (!Files.isRegularFile(alerts)) {
      // The alerts are written separately; until they are, enabling the rule says what is missing.
      Helm.Result missing = Helm.template("--set", "metrics.prometheusRule.enabled=true");
      assertThat(missing.exit()).isNotZero();
      assertThat(missing.err()).contains("the chart has no files/tenantry-alerts.yaml");
      return;
    }
    JsonNode rule = find(render("--set", "metrics.prometheusRule.enabled=true", "--set", "metrics.prometheusRule.labels.release=prom"),
        "PrometheusRule", "tenantry-operator");
    assertThat(rule.at("/metadata/labels/release").asText()).isEqualTo("prom");
    assertThat(rule.at("/spec/groups")).isEqualTo(Helm.objects(Files.readString(alerts)).get(0).get("groups"));
  }

  private static String configOf(List<JsonNode> objects) {
    return find(objects, "ConfigMap", "tenantry-operator").at("/data/operator.yaml").asText();
  }

  private static String chartAppVersion() {
    try {
      return Helm.objects(Files.readString(Helm.chart().resolve("Chart.yaml"))).get(0).get("appVersion").asText();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> strings(JsonNode array) {
    return array == null ? List.of() : StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
  }

  /** Every value of {@code field} across {@code rules}. */
  private static List<String> strings(JsonNode rules, String field) {
    List<String> values = new ArrayList<>();
    rules.forEach(rule -> values.addAll(strings(rule.get(field))));
    return values;
  }

  /** The dotted paths of every leaf setting the schema describes (a map's entries as "*"). */
  private static void schemaPaths(JsonNode schema, String prefix, Set<String> paths) {
    if (schema.has("properties")) {
      schema.get("properties").fields().forEachRemaining(p -> schemaPaths(p.getValue(), prefix + p.getKey() + ".", paths));
    } else if (schema.path("additionalProperties").isObject() && schema.get("additionalProperties").has("properties")) {
      schemaPaths(schema.get("additionalProperties"), prefix + "*.", paths);
    } else if (schema.path("items").has("properties")) {
      schemaPaths(schema.get("items"), prefix + "[].", paths);
    } else {
      paths.add(prefix.substring(0, prefix.length() - 1));
    }
  }

  /** The same paths of a configuration record: records are sections, maps of records and lists of records are descended. */
  private static void configPaths(Class<?> record, String prefix, Set<String> paths) {
    for (RecordComponent component : record.getRecordComponents()) {
      String path = prefix + component.getName();
      Class<?> element = elementRecord(component.getGenericType());
      if (component.getType().isRecord()) {
        configPaths(component.getType(), path + ".", paths);
      } else if (element != null) {
        configPaths(element, path + (Map.class.isAssignableFrom(component.getType()) ? ".*." : ".[]."), paths);
      } else {
        paths.add(path);
      }
    }
  }

  private static Class<?> elementRecord(Type type) {
    if (type instanceof ParameterizedType parameterized) {
      Type[] arguments = parameterized.getActualTypeArguments();
      if (arguments[arguments.length - 1] instanceof Class<?> element && element.isRecord()) {
        return element;
      }
    }
    return null;
  }
}
