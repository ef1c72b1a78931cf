package io.tenantry.api.v1alpha1;

import static io.tenantry.api.v1alpha1.ApiFixtures.activeTenant;
import static io.tenantry.api.v1alpha1.ApiFixtures.generic;
import static io.tenantry.api.v1alpha1.ApiFixtures.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.testsupport.WithCluster;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The generated CRDs on a real API server: valid objects are stored as sent (with defaults), and
 * invalid ones are refused with a message that names the offending field or rule.
 */
@WithCluster
class CrdValidationIT {

  private static KubernetesClient client;

  @BeforeAll
  static void installCrds(KubernetesClient kubernetesClient) {
    client = kubernetesClient;
    ApiFixtures.installCrds(client);
  }

  @Test
  void aFullActiveTenantIsStoredAsSent() {
    Tenant sent = activeTenant(uniqueName("full"));
    Tenant stored = client.resources(Tenant.class).resource(sent).create();
    assertThat(stored.getSpec()).isEqualTo(sent.getSpec());
    assertThat(client.resources(Tenant.class).withName(sent.getMetadata().getName()).get().getSpec())
        .isEqualTo(sent.getSpec());
  }

  @Test
  void anEmptySpecGetsItsDefaults() {
    String name = uniqueName("spare");
    generic(client, "Tenant").resource(ApiFixtures.yaml("""
        apiVersion: tenantry.io/v1alpha1
        kind: Tenant
        metadata: {name: %s}
        spec:
          apps:
          - {name: web, image: registry.example.com/web, version: "2.0"}
          databases:
          - {name: main, engine: mysql, version: "8.4"}
        """.formatted(name))).create();
    TenantSpec spec = client.resources(Tenant.class).withName(name).get().getSpec();
    assertThat(spec.getState()).isEqualTo(TenantState.New);
    assertThat(spec.getPlan()).isEqualTo("standard");
    assertThat(spec.getApps().get(0).getReplicas()).as("not defaulted: autoscaling may be set instead").isNull();
    assertThat(spec.getApps().get(0).fixedReplicas()).isEqualTo(1);
    assertThat(spec.getApps().get(0).getPort()).isEqualTo(8080);
    assertThat(spec.getDatabases().get(0).getStorage()).isEqualTo("1Gi");
    assertThat(spec.getDatabases().get(0).getEngine()).isEqualTo(DatabaseEngine.MYSQL);
  }

  @Test
  void aSparePoolIsStoredWithItsDefaults() {
    SparePool pool = new SparePool();
    pool.getMetadata().setName(uniqueName("pool"));
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.4.2", 1, 8080));
    template.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "5Gi"));
    pool.setSpec(new SparePoolSpec(20, 5, template));
    pool.getSpec().setMaxProvisioning(null);

    SparePool stored = client.resources(SparePool.class).resource(pool).create();
    assertThat(stored.getSpec().getBuffer()).isEqualTo(20);
    assertThat(stored.getSpec().getMaxProvisioning()).isEqualTo(5);
    assertThat(stored.getSpec().getTemplate()).isEqualTo(template);
  }

  @Test
  void theStatusIsOnlyWrittenThroughTheStatusSubresource() {
    Tenant tenant = client.resources(Tenant.class).resource(activeTenant(uniqueName("status"))).create();
    TenantStatus status = new TenantStatus();
    status.setPhase(TenantPhase.Ready);
    tenant.setStatus(status);
    client.resources(Tenant.class).resource(tenant).update();
    assertThat(client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get().getStatus()).isNull();

    client.resources(Tenant.class).resource(tenant).updateStatus();
    assertThat(client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get().getStatus().getPhase())
        .isEqualTo(TenantPhase.Ready);
  }

  @Test
  void anAutoscaledAppIsStoredWithoutReplicasAndItsBoundsDefaulted() {
    Tenant sent = activeTenant(uniqueName("autoscaled"));
    AppSpec web = sent.getSpec().getApps().get(0);
    web.setReplicas(null);
    AutoscalingSpec autoscaling = new AutoscalingSpec();
    autoscaling.setMinReplicas(null);
    autoscaling.setTargetCPUUtilizationPercentage(null);
    autoscaling.setMaxReplicas(5);
    web.setAutoscaling(autoscaling);
    Tenant stored = client.resources(Tenant.class).resource(sent).create();
    AppSpec storedWeb = stored.getSpec().getApps().get(0);
    assertThat(storedWeb.getReplicas()).as("no default beside autoscaling").isNull();
    assertThat(storedWeb.getAutoscaling()).isEqualTo(new AutoscalingSpec(1, 5, 80));
    assertThat(stored.getSpec().getApps().get(1).getReplicas()).isEqualTo(sent.getSpec().getApps().get(1).getReplicas());
  }

  @Test
  void pathsOfTheGatewayApisCharactersAndHostnamesEndingInALetterAreStoredAsSent() {
    Tenant sent = activeTenant(uniqueName("paths"));
    AppSpec web = sent.getSpec().getApps().get(0);
    web.setRoutes(new java.util.ArrayList<>(List.of(new AppRoute("/"), new AppRoute("/api/v1/"),
        new AppRoute("/.well-known/acme-challenge"), new AppRoute("/@acme:files;v=2"), new AppRoute("/caf%C3%A9"),
        new AppRoute("/a..b/...x"))));
    web.setReadinessPath("/healthz/ready~1");
    web.setLivenessPath("/-/live");
    sent.getSpec().setHostnames(new java.util.ArrayList<>(List.of("10-0-0-1.acme.example", "shop.acme.xn--p1ai", "1.2.3.example")));
    Tenant stored = client.resources(Tenant.class).resource(sent).create();
    assertThat(stored.getSpec()).isEqualTo(sent.getSpec());
  }

  static Stream<Arguments> invalidTenants() {
    return Stream.of(invalidNamesStatesAndBounds(), missingFieldsAndMalformedStrings(),
            crossFieldRulesAndListSizes(), malformedNestedFields(), malformedAppWiring(), malformedRouting(),
            hostilePaths(), hostileHostnames())
        .flatMap(group -> group);
  }

  /**
   * Paths an Ingress controller could template into its configuration, or that a proxy and the app
   * would split differently: refused in a route's prefix and in a probe's path alike.
   */
  private static Stream<Arguments> hostilePaths() {
    String prefix = "spec.apps[0].routes[1].pathPrefix";
    return Stream.of(
        invalid("a backtick in a route prefix", t -> route(t, 1).put("pathPrefix", "/api`whoami`"), prefix, "should match"),
        invalid("braces in a route prefix", t -> route(t, 1).put("pathPrefix", "/api{}"), prefix, "should match"),
        invalid("a quote in a route prefix", t -> route(t, 1).put("pathPrefix", "/api'"), prefix, "should match"),
        invalid("a double quote in a route prefix", t -> route(t, 1).put("pathPrefix", "/api\""), prefix, "should match"),
        invalid("a '#' in a route prefix", t -> route(t, 1).put("pathPrefix", "/api#x"), prefix, "should match"),
        invalid("a space in a route prefix", t -> route(t, 1).put("pathPrefix", "/api v1"), prefix, "should match"),
        invalid("a '..' segment in a route prefix", t -> route(t, 1).put("pathPrefix", "/api/../admin"),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not have a '.' or '..' segment"),
        invalid("a trailing '..' in a route prefix", t -> route(t, 1).put("pathPrefix", "/api/.."),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not have a '.' or '..' segment"),
        invalid("a '.' segment in a route prefix", t -> route(t, 1).put("pathPrefix", "/./api"),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not have a '.' or '..' segment"),
        invalid("'//' in a route prefix", t -> route(t, 1).put("pathPrefix", "/api//v1"),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not contain '//'"),
        invalid("%2F in a route prefix", t -> route(t, 1).put("pathPrefix", "/api%2Fadmin"),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not contain %2F, %2E or %5C"),
        invalid("%2f in a route prefix", t -> route(t, 1).put("pathPrefix", "/api%2fadmin"),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not contain %2F, %2E or %5C"),
        invalid("an encoded '..' in a route prefix", t -> route(t, 1).put("pathPrefix", "/api/%2e%2e/admin"),
            prefix + ": Invalid value", "spec.apps[].routes[].pathPrefix: must not contain %2F, %2E or %5C"),
        invalid("a backtick in a readiness path", t -> app(t, 0).put("readinessPath", "/healthz`id`"),
            "spec.apps[0].readinessPath", "should match"),
        invalid("braces in a readiness path", t -> app(t, 0).put("readinessPath", "/healthz${x}"),
            "spec.apps[0].readinessPath", "should match"),
        invalid("a query in a readiness path", t -> app(t, 0).put("readinessPath", "/healthz?full=1"),
            "spec.apps[0].readinessPath", "should match"),
        invalid("a '..' segment in a readiness path", t -> app(t, 0).put("readinessPath", "/healthz/../admin"),
            "spec.apps[0].readinessPath: Invalid value", "spec.apps[].readinessPath: must not have a '.' or '..' segment"),
        invalid("'//' in a readiness path", t -> app(t, 0).put("readinessPath", "//healthz"),
            "spec.apps[0].readinessPath: Invalid value", "spec.apps[].readinessPath: must not contain '//'"),
        invalid("%2F in a readiness path", t -> app(t, 0).put("readinessPath", "/healthz%2F..%2Fadmin"),
            "spec.apps[0].readinessPath: Invalid value", "spec.apps[].readinessPath: must not contain %2F, %2E or %5C"),
        invalid("a '..' segment in a liveness path", t -> app(t, 0).put("livenessPath", "/../livez"),
            "spec.apps[0].livenessPath: Invalid value", "spec.apps[].livenessPath: must not have a '.' or '..' segment"));
  }

  /** IP addresses are not hostnames: an all-digit last label is none. */
  private static Stream<Arguments> hostileHostnames() {
    return Stream.of(
        invalid("an IPv4 address as a hostname", t -> ((ArrayNode) spec(t).get("hostnames")).set(1, "10.0.0.1"),
            "spec.hostnames: Invalid value", "spec.hostnames: an IP address is not a hostname"),
        invalid("a hostname whose last label is all digits", t -> ((ArrayNode) spec(t).get("hostnames")).set(0, "shop.acme.123"),
            "spec.hostnames: Invalid value", "spec.hostnames: an IP address is not a hostname"),
        invalid("an IPv6 address as a hostname", t -> ((ArrayNode) spec(t).get("hostnames")).set(0, "fd00::1"),
            "spec.hostnames[0]", "should match"));
  }

  /** The name, the state, the engine and the numeric bounds. */
  private static Stream<Arguments> invalidNamesStatesAndBounds() {
    return Stream.of(
        invalid("a name that is not a DNS label", t -> t.with("metadata").put("name", "acme.corp"),
            "metadata.name must be a DNS label"),
        invalid("a name starting with a digit", t -> t.with("metadata").put("name", "1acme"),
            "metadata.name must be a DNS label"),
        invalid("a name over 48 characters", t -> t.with("metadata").put("name", "a".repeat(49)),
            "metadata.name must be at most 48 characters"),
        invalid("no spec", t -> t.remove("spec"), "spec is required"),
        invalid("an unknown state", t -> spec(t).put("state", "Paused"),
            "spec.state: Unsupported value: \"Paused\""),
        invalid("an unknown database engine", t -> database(t, 0).put("engine", "mongodb"),
            "spec.databases[0].engine: Unsupported value: \"mongodb\""),
        invalid("negative replicas", t -> app(t, 0).put("replicas", -1),
            "spec.apps[0].replicas", "greater than or equal to 0"),
        invalid("more than 100 replicas", t -> app(t, 0).put("replicas", 101),
            "spec.apps[0].replicas", "less than or equal to 100"),
        invalid("port 0", t -> app(t, 1).put("port", 0),
            "spec.apps[1].port", "greater than or equal to 1"),
        invalid("a port above 65535", t -> app(t, 1).put("port", 70000),
            "spec.apps[1].port", "less than or equal to 65535"));
  }

  /** Required fields, length limits and patterns of top-level strings. */
  private static Stream<Arguments> missingFieldsAndMalformedStrings() {
    return Stream.of(
        invalid("an app without image", t -> app(t, 0).remove("image"),
            "spec.apps[0].image: Required value"),
        invalid("an app without version", t -> app(t, 0).remove("version"),
            "spec.apps[0].version: Required value"),
        invalid("an app without name", t -> app(t, 1).remove("name"),
            "spec.apps[1].name: Required value"),
        invalid("a database without engine", t -> database(t, 0).remove("engine"),
            "spec.databases[0].engine: Required value"),
        invalid("a database without version", t -> database(t, 1).remove("version"),
            "spec.databases[1].version: Required value"),
        invalid("an over-long organization", t -> spec(t).put("organization", "o".repeat(254)),
            "spec.organization: Too long"),
        invalid("an over-long app name", t -> app(t, 0).put("name", "w".repeat(31)),
            "spec.apps[0].name: Too long"),
        invalid("an app name with capitals", t -> app(t, 0).put("name", "Web"),
            "spec.apps[0].name", "should match"),
        invalid("a malformed email", t -> spec(t).put("email", "ops-at-acme"),
            "spec.email", "should match"),
        invalid("a restoreFrom that names no backup", t -> database(t, 0).put("restoreFrom", "yesterday"),
            "spec.databases[0].restoreFrom", "should match"),
        invalid("a storage size that is not a quantity", t -> database(t, 0).put("storage", "ten gigs"),
            "spec.databases[0].storage", "should match"));
  }

  /** The CEL rules across fields and the list sizes. */
  private static Stream<Arguments> crossFieldRulesAndListSizes() {
    return Stream.of(
        invalid("two apps with the same name", t -> app(t, 1).put("name", "web"),
            "spec.apps", "app names must be unique within a tenant"),
        invalid("two databases with the same name", t -> database(t, 1).put("name", "main"),
            "spec.databases", "database names must be unique within a tenant"),
        invalid("an Active tenant without a customer", t -> spec(t).remove("email"),
            "spec.organization and spec.email are required once a tenant has left New"),
        invalid("more than 16 apps", t -> {
          ArrayNode apps = (ArrayNode) spec(t).get("apps");
          for (int i = 0; i < 15; i++) {
            apps.addObject().put("name", "app" + i).put("image", "registry.example.com/a").put("version", "1");
          }
        }, "spec.apps: Too many: 17: must have at most 16 items"),
        invalid("more than 8 databases", t -> {
          ArrayNode databases = (ArrayNode) spec(t).get("databases");
          for (int i = 0; i < 7; i++) {
            databases.addObject().put("name", "db" + i).put("engine", "redis").put("version", "7");
          }
        }, "spec.databases: Too many: 9: must have at most 8 items"));
  }

  /** Patterns of images, versions, environment variables, resources and the plan. */
  private static Stream<Arguments> malformedNestedFields() {
    return Stream.of(
        invalid("an image with capitals", t -> app(t, 0).put("image", "Registry.example.com/Acme/Web"),
            "spec.apps[0].image", "should match"),
        invalid("a version with a space", t -> app(t, 0).put("version", "1.0 beta"),
            "spec.apps[0].version", "should match"),
        invalid("an environment variable name starting with a digit",
            t -> ((ObjectNode) app(t, 0).get("env").get(0)).put("name", "1VAR"),
            "spec.apps[0].env[0].name", "should match"),
        invalid("two environment variables with the same name",
            t -> ((ArrayNode) app(t, 0).get("env")).addObject().put("name", "LOG_LEVEL").put("value", "debug"),
            "spec.apps[0].env", "environment variable names must be unique within an app"),
        invalid("a CPU request that is not a quantity",
            t -> app(t, 0).with("resources").with("requests").put("cpu", "lots"),
            "spec.apps[0].resources.requests.cpu", "should match"),
        invalid("a plan that is not a DNS label", t -> spec(t).put("plan", "Gold Plan"),
            "spec.plan", "should match"));
  }

  /** Bindings, secrets, configuration files, probes and migrations of an app. */
  private static Stream<Arguments> malformedAppWiring() {
    return Stream.of(
        invalid("an app bound to a database the tenant does not have", t -> ((ArrayNode) app(t, 0).get("databases")).add("orders"),
            "spec.apps[].databases: every entry must name a database of spec.databases"),
        invalid("an empty migrate command", t -> app(t, 0).with("migrate").putArray("command"),
            "spec.apps[0].migrate.command", "at least 1 items"),
        invalid("a migrate command with an empty entry", t -> app(t, 0).with("migrate").putArray("command").add(""),
            "spec.apps[].migrate.command: entries must be non-empty"),
        invalid("a migration timeout over an hour", t -> app(t, 0).with("migrate").put("timeoutSeconds", 3601),
            "spec.apps[0].migrate.timeoutSeconds", "less than or equal to 3600"),
        invalid("a readiness path not starting with /", t -> app(t, 0).put("readinessPath", "healthz"),
            "spec.apps[0].readinessPath", "should match"),
        invalid("a liveness path with a space", t -> app(t, 0).put("livenessPath", "/live z"),
            "spec.apps[0].livenessPath", "should match"),
        invalid("a config file name that is a path", t -> ((ObjectNode) app(t, 0).get("config").get(0)).put("name", "../passwd"),
            "spec.apps[0].config[0].name", "should match"),
        invalid("a hidden config file", t -> ((ObjectNode) app(t, 0).get("config").get(0)).put("name", ".env"),
            "spec.apps[0].config[0].name", "should match"),
        invalid("over-long config contents", t -> ((ObjectNode) app(t, 0).get("config").get(0)).put("content", "x".repeat(32769)),
            "spec.apps[0].config[0].content: Too long"),
        invalid("more than 16 config files", t -> {
          ArrayNode config = (ArrayNode) app(t, 0).get("config");
          for (int i = 0; i < 16; i++) {
            config.addObject().put("name", "f" + i + ".yaml").put("content", "");
          }
        }, "spec.apps[0].config: Too many: 17: must have at most 16 items"),
        invalid("a template secret name with capitals", t -> ((ObjectNode) app(t, 0).get("secrets").get(0)).put("name", "SMTP"),
            "spec.apps[0].secrets[0].name", "should match"),
        invalid("one template secret named twice", t -> ((ObjectNode) app(t, 0).get("secrets").get(1)).put("name", "smtp"),
            "spec.apps[].secrets: each template secret may be named once"));
  }

  /** Hostnames, the subdomain and the apps' routes. */
  private static Stream<Arguments> malformedRouting() {
    return Stream.of(
        invalid("a wildcard hostname", t -> ((ArrayNode) spec(t).get("hostnames")).set(0, "*.acme.example"),
            "spec.hostnames[0]", "should match"),
        invalid("a hostname with capitals", t -> ((ArrayNode) spec(t).get("hostnames")).set(0, "App.Acme.example"),
            "spec.hostnames[0]", "should match"),
        invalid("a single-label hostname", t -> ((ArrayNode) spec(t).get("hostnames")).set(1, "localhost"),
            "spec.hostnames[1]", "should match"),
        invalid("an over-long hostname", t -> ((ArrayNode) spec(t).get("hostnames")).set(0, ("a".repeat(60) + ".").repeat(5) + "example"),
            "spec.hostnames[0]: Too long"),
        invalid("one hostname twice", t -> ((ArrayNode) spec(t).get("hostnames")).set(1, "app.acme.example"),
            "spec.hostnames: each hostname may be named once"),
        invalid("more than 16 hostnames", t -> {
          ArrayNode hostnames = (ArrayNode) spec(t).get("hostnames");
          for (int i = 0; i < 15; i++) {
            hostnames.add("h" + i + ".acme.example");
          }
        }, "spec.hostnames: Too many: 17: must have at most 16 items"),
        invalid("a subdomain with a dot", t -> spec(t).put("subdomain", "acme.corp"), "spec.subdomain", "should match"),
        invalid("a route prefix not starting with /", t -> ((ObjectNode) app(t, 0).get("routes").get(0)).put("pathPrefix", "api"),
            "spec.apps[0].routes[0].pathPrefix", "should match"),
        invalid("one prefix twice in an app", t -> ((ObjectNode) app(t, 0).get("routes").get(1)).put("pathPrefix", "/"),
            "spec.apps[].routes: each path prefix may be named once"),
        invalid("one prefix routed to two apps", t -> app(t, 1).putArray("routes").addObject().put("pathPrefix", "/api"),
            "spec.apps[].routes: a path prefix may be routed to one app only"),
        invalid("replicas and autoscaling together", t -> app(t, 0).put("replicas", 2).putObject("autoscaling")
            .put("maxReplicas", 5), "spec.apps[]: replicas and autoscaling exclude each other; remove replicas to autoscale"),
        invalid("autoscaling with minReplicas above maxReplicas", t -> autoscaling(t).put("minReplicas", 4).put("maxReplicas", 2),
            "spec.apps[].autoscaling: minReplicas must not be above maxReplicas"),
        invalid("autoscaling without maxReplicas", t -> autoscaling(t).put("minReplicas", 2),
            "spec.apps[0].autoscaling.maxReplicas: Required value"),
        invalid("autoscaling at 0 pods", t -> autoscaling(t).put("minReplicas", 0).put("maxReplicas", 2),
            "spec.apps[0].autoscaling.minReplicas", "greater than or equal to 1"));
  }

  @ParameterizedTest(name = "a tenant with {0} is refused")
  @MethodSource("invalidTenants")
  void anInvalidTenantIsRefusedNamingTheField(String description, Consumer<ObjectNode> mutation, List<String> expected) {
    ObjectNode tenant = Serialization.jsonMapper().valueToTree(activeTenant(uniqueName("invalid")));
    mutation.accept(tenant);
    assertRefused("Tenant", tenant, expected);
  }

  static Stream<Arguments> invalidSparePools() {
    return Stream.of(
        invalid("no buffer", p -> spec(p).remove("buffer"), "spec.buffer: Required value"),
        invalid("a negative buffer", p -> spec(p).put("buffer", -1),
            "spec.buffer", "greater than or equal to 0"),
        invalid("maxProvisioning 0", p -> spec(p).put("maxProvisioning", 0),
            "spec.maxProvisioning", "greater than or equal to 1"),
        invalid("no template", p -> spec(p).remove("template"), "spec.template: Required value"),
        invalid("a template app without image",
            p -> ((ObjectNode) spec(p).get("template").get("apps").get(0)).remove("image"),
            "spec.template.apps[0].image: Required value"),
        invalid("a template database with an unknown engine",
            p -> ((ObjectNode) spec(p).get("template").get("databases").get(0)).put("engine", "oracle"),
            "spec.template.databases[0].engine: Unsupported value: \"oracle\""),
        invalid("a name over 30 characters", p -> p.with("metadata").put("name", "p".repeat(31)),
            "metadata.name must be a DNS label of at most 30 characters"),
        invalid("no spec", p -> p.remove("spec"), "spec is required"));
  }

  @ParameterizedTest(name = "a spare pool with {0} is refused")
  @MethodSource("invalidSparePools")
  void anInvalidSparePoolIsRefusedNamingTheField(String description, Consumer<ObjectNode> mutation, List<String> expected) {
    TenantTemplate template = activeTenant("template").getSpec();
    TenantTemplate plain = new TenantTemplate();
    plain.setApps(template.getApps());
    plain.setDatabases(template.getDatabases());
    SparePool pool = new SparePool();
    pool.getMetadata().setName(uniqueName("pool"));
    pool.setSpec(new SparePoolSpec(3, 2, plain));
    ObjectNode node = Serialization.jsonMapper().valueToTree(pool);
    mutation.accept(node);
    assertRefused("SparePool", node, expected);
  }

  @Test
  void changingTheEngineOfAnExistingDatabaseIsRefusedAndNothingChanges() {
    Tenant tenant = client.resources(Tenant.class).resource(activeTenant(uniqueName("engine"))).create();
    tenant.getSpec().getDatabases().get(0).setEngine(DatabaseEngine.MYSQL);
    assertThatThrownBy(() -> client.resources(Tenant.class).resource(tenant).update())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.databases[].engine cannot change for an existing database");
    assertThat(client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get()
        .getSpec().getDatabases().get(0).getEngine()).isEqualTo(DatabaseEngine.POSTGRES);

    // Adding a database, or renaming one with another engine, is allowed.
    tenant.getSpec().getDatabases().get(0).setName("reporting");
    tenant.getSpec().getApps().get(0).setDatabases(List.of("reporting", "cache")); // Bindings follow the rename.
    assertThat(client.resources(Tenant.class).resource(tenant).update().getSpec().getDatabases())
        .extracting(DatabaseSpec::getName).containsExactly("reporting", "cache");
  }

  @Test
  void aMajorVersionChangeOfAnExistingDatabaseIsRefusedUnlessAskedAsAnUpgradeAMinorOneIsNotAndNoVersionGoesDown() {
    Tenant tenant = client.resources(Tenant.class).resource(activeTenant(uniqueName("major"))).create();
    DatabaseSpec db = tenant.getSpec().getDatabases().get(0);
    String version = db.getVersion();
    String major = version.split("[.]")[0];
    db.setVersion(major + ".99");
    tenant = client.resources(Tenant.class).resource(tenant).update();
    assertThat(tenant.getSpec().getDatabases().get(0).getVersion()).isEqualTo(major + ".99");

    for (String other : new String[] {(Integer.parseInt(major) + 1) + ".0", (Integer.parseInt(major) - 1) + ".4"}) {
      Tenant changed = client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get();
      changed.getSpec().getDatabases().get(0).setVersion(other);
      assertThatThrownBy(() -> client.resources(Tenant.class).resource(changed).update())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.databases[].version cannot change major version");
    }
    Tenant higher = client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get();
    higher.getSpec().getDatabases().get(0).setVersion(major + ".100"); // compared as numbers: "100" < "99" as strings
    assertThat(client.resources(Tenant.class).resource(higher).update().getSpec().getDatabases().get(0).getVersion())
        .isEqualTo(major + ".100");
    Tenant lower = client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get();
    lower.getSpec().getDatabases().get(0).setVersion(major + ".99");
    assertThatThrownBy(() -> client.resources(Tenant.class).resource(lower).update())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.databases[].version cannot go down");
    assertThat(client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get()
        .getSpec().getDatabases().get(0).getVersion()).isEqualTo(major + ".100");

    Tenant upgraded = client.resources(Tenant.class).withName(tenant.getMetadata().getName()).get();
    upgraded.getSpec().getDatabases().get(0).setVersion((Integer.parseInt(major) + 1) + ".0");
    upgraded.getSpec().getDatabases().get(0).setMajorUpgrade(true);
    assertThat(client.resources(Tenant.class).resource(upgraded).update().getSpec().getDatabases().get(0).getVersion())
        .isEqualTo((Integer.parseInt(major) + 1) + ".0");
  }

  private static void assertRefused(String kind, ObjectNode object, List<String> expected) {
    GenericKubernetesResource resource = Serialization.jsonMapper().convertValue(object, GenericKubernetesResource.class);
    assertThatThrownBy(() -> generic(client, kind).resource(resource).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getStatus().getMessage()).contains(expected);
        });
    // Nothing was stored.
    if (resource.getMetadata().getName() != null && !resource.getMetadata().getName().isEmpty()) {
      assertThat(generic(client, kind).withName(resource.getMetadata().getName()).get()).isNull();
    }
  }

  private static Arguments invalid(String description, Consumer<ObjectNode> mutation, String... expected) {
    return Arguments.of(description, mutation, List.of(expected));
  }

  private static ObjectNode spec(ObjectNode object) {
    return (ObjectNode) object.get("spec");
  }

  private static ObjectNode app(ObjectNode tenant, int index) {
    return (ObjectNode) spec(tenant).get("apps").get(index);
  }

  /** App 0 autoscaled instead of at fixed replicas: its autoscaling object, to fill. */
  private static ObjectNode autoscaling(ObjectNode tenant) {
    ObjectNode app = app(tenant, 0);
    app.remove("replicas");
    return app.putObject("autoscaling");
  }

  private static ObjectNode route(ObjectNode tenant, int index) {
    return (ObjectNode) app(tenant, 0).get("routes").get(index);
  }

  private static ObjectNode database(ObjectNode tenant, int index) {
    JsonNode databases = spec(tenant).get("databases");
    return (ObjectNode) databases.get(index);
  }
}
