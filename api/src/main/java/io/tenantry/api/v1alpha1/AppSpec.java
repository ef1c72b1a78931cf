package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One application of the tenant's stack (Kolide's "repos"): a Deployment, a Service and, with more
 * than one replica, a PDB; with autoscaling, a HorizontalPodAutoscaler.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.replicas) && has(self.autoscaling))",
    message = "spec.apps[]: replicas and autoscaling exclude each other; remove replicas to autoscale")
public class AppSpec {

  @Required
  @Size(max = 30)
  @Pattern(Patterns.DNS_LABEL)
  @JsonPropertyDescription("Name of the app, unique within the tenant; names its Deployment and Service (a DNS label, at most 30 characters).")
  private String name;

  @Required
  @Size(max = 255)
  @Pattern(Patterns.IMAGE)
  @JsonPropertyDescription("Container image without tag, for example registry.example.com/acme/web. The tag is spec.apps[].version.")
  private String image;

  @Required
  @Size(max = 128)
  @Pattern(Patterns.IMAGE_TAG)
  @JsonPropertyDescription("Version of the app, used as the image tag. Changing it rolls the app's Deployment.")
  private String version;

  @Min(0)
  @Max(100)
  @JsonPropertyDescription("Number of pods while the tenant is Active or New (0 to 100; 1 when absent). A PodDisruptionBudget is added"
      + " above 1. Not together with autoscaling.")
  private Integer replicas;

  @JsonPropertyDescription("Scale the app with a HorizontalPodAutoscaler on its CPU use instead of a fixed number of pods. The"
      + " operator then never writes the Deployment's replicas (switching from fixed replicas hands them over without a dip);"
      + " a Frozen tenant still goes to zero. Not together with replicas.")
  private AutoscalingSpec autoscaling;

  @Default("8080")
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Port the app listens on; its Service exposes it.")
  private Integer port = 8080;

  @Size(max = 64)
  @ValidationRule(value = "self.all(e, self.exists_one(f, f.name == e.name))",
      message = "environment variable names must be unique within an app")
  @JsonPropertyDescription("Plain environment variables for the app's containers.")
  private List<EnvVar> env = new ArrayList<>();

  @JsonPropertyDescription("CPU and memory requests and limits of the app's containers.")
  private AppResources resources;

  @Size(max = 8)
  @JsonPropertyDescription("Names of the tenant's databases this app is bound to (spec.databases[].name); when absent, all of them. Each binding is a directory $SERVICE_BINDING_ROOT/<database>/ (SERVICE_BINDING_ROOT=/bindings) with the Service Binding spec's keys, and a variable <DATABASE>_URL with its connection URI.")
  private List<String> databases;

  @Size(max = 16)
  @ValidationRule(value = "self.all(s, self.exists_one(t, t.name == s.name))",
      message = "spec.apps[].secrets: each template secret may be named once")
  @JsonPropertyDescription("Template secrets the app consumes, as files under /etc/tenantry/secrets/<name>/ or as environment variables.")
  private List<AppSecretRef> secrets = new ArrayList<>();

  @Size(max = 16)
  @ValidationRule(value = "self.all(f, self.exists_one(g, g.name == f.name))",
      message = "spec.apps[].config: file names must be unique within an app")
  @JsonPropertyDescription("Per-tenant configuration files, mounted read-only under /etc/tenantry/config/. A change rolls the app.")
  private List<ConfigFile> config = new ArrayList<>();

  @Size(max = 256)
  @Pattern(Patterns.HTTP_PATH)
  @ValidationRule(value = Patterns.HTTP_PATH_NO_EMPTY_SEGMENT,
      message = "spec.apps[].readinessPath: must not contain '//' (an empty segment)")
  @ValidationRule(value = Patterns.HTTP_PATH_NO_DOT_SEGMENT,
      message = "spec.apps[].readinessPath: must not have a '.' or '..' segment")
  @ValidationRule(value = Patterns.HTTP_PATH_NO_ENCODED_SEPARATOR,
      message = "spec.apps[].readinessPath: must not contain %2F, %2E or %5C (an encoded '/', '.' or backslash)")
  @JsonPropertyDescription("Path of the app's readiness check, an HTTP GET on its port (must start with /; the characters and segment rules of spec.apps[].routes[].pathPrefix, so no query string). When absent, the pod is ready once its port accepts TCP connections.")
  private String readinessPath;

  @Size(max = 256)
  @Pattern(Patterns.HTTP_PATH)
  @ValidationRule(value = Patterns.HTTP_PATH_NO_EMPTY_SEGMENT,
      message = "spec.apps[].livenessPath: must not contain '//' (an empty segment)")
  @ValidationRule(value = Patterns.HTTP_PATH_NO_DOT_SEGMENT,
      message = "spec.apps[].livenessPath: must not have a '.' or '..' segment")
  @ValidationRule(value = Patterns.HTTP_PATH_NO_ENCODED_SEPARATOR,
      message = "spec.apps[].livenessPath: must not contain %2F, %2E or %5C (an encoded '/', '.' or backslash)")
  @JsonPropertyDescription("Path of the app's liveness check, an HTTP GET on its port (must start with /; the rules of readinessPath); the pod restarts after 3 failures 10s apart. When absent, no liveness check.")
  private String livenessPath;

  @JsonPropertyDescription("Migration run as a Job with the new version's image before the app first starts and before its version changes; the Deployment changes only once it succeeded.")
  private MigrationSpec migrate;

  @Size(max = 8)
  @ValidationRule(value = "self.all(r, self.exists_one(q, q.pathPrefix == r.pathPrefix))",
      message = "spec.apps[].routes: each path prefix may be named once")
  @JsonPropertyDescription("Paths of the tenant's hostnames this app serves, routed from the edge; an app without routes is not exposed.")
  private List<AppRoute> routes = new ArrayList<>();

  @Default("false")
  @JsonPropertyDescription("Lets the app's container write to its root filesystem. Default false: the root filesystem is read-only and /tmp is a size-limited emptyDir.")
  private Boolean writableRootFilesystem = false;

  public AppSpec() {
  }

  public AppSpec(String name, String image, String version, int replicas, int port) {
    this.name = name;
    this.image = image;
    this.version = version;
    this.replicas = replicas;
    this.port = port;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public String getVersion() {
    return version;
  }

  public void setVersion(String version) {
    this.version = version;
  }

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public AutoscalingSpec getAutoscaling() {
    return autoscaling;
  }

  public void setAutoscaling(AutoscalingSpec autoscaling) {
    this.autoscaling = autoscaling;
  }

  /** The pods the app runs while Active: its replicas (1 when absent); null when autoscaled (its HPA decides). */
  public Integer fixedReplicas() {
    return autoscaling != null ? null : replicas == null ? Integer.valueOf(1) : replicas;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public List<EnvVar> getEnv() {
    return env;
  }

  public void setEnv(List<EnvVar> env) {
    this.env = env;
  }

  public AppResources getResources() {
    return resources;
  }

  public void setResources(AppResources resources) {
    this.resources = resources;
  }

  public List<String> getDatabases() {
    return databases;
  }

  public void setDatabases(List<String> databases) {
    this.databases = databases;
  }

  public List<AppSecretRef> getSecrets() {
    return secrets;
  }

  public void setSecrets(List<AppSecretRef> secrets) {
    this.secrets = secrets;
  }

  public List<ConfigFile> getConfig() {
    return config;
  }

  public void setConfig(List<ConfigFile> config) {
    this.config = config;
  }

  public List<AppRoute> getRoutes() {
    return routes;
  }

  public void setRoutes(List<AppRoute> routes) {
    this.routes = routes;
  }

  public String getReadinessPath() {
    return readinessPath;
  }

  public void setReadinessPath(String readinessPath) {
    this.readinessPath = readinessPath;
  }

  public String getLivenessPath() {
    return livenessPath;
  }

  public void setLivenessPath(String livenessPath) {
    this.livenessPath = livenessPath;
  }

  public MigrationSpec getMigrate() {
    return migrate;
  }

  public void setMigrate(MigrationSpec migrate) {
    this.migrate = migrate;
  }

  public Boolean getWritableRootFilesystem() {
    return writableRootFilesystem;
  }

  public void setWritableRootFilesystem(Boolean writableRootFilesystem) {
    this.writableRootFilesystem = writableRootFilesystem;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AppSpec a && Objects.equals(name, a.name) && Objects.equals(image, a.image)
        && Objects.equals(version, a.version) && Objects.equals(replicas, a.replicas)
        && Objects.equals(port, a.port) && Objects.equals(env, a.env) && Objects.equals(resources, a.resources)
        && Objects.equals(databases, a.databases) && Objects.equals(secrets, a.secrets) && Objects.equals(config, a.config)
        && Objects.equals(readinessPath, a.readinessPath) && Objects.equals(livenessPath, a.livenessPath)
        && Objects.equals(migrate, a.migrate) && Objects.equals(writableRootFilesystem, a.writableRootFilesystem)
        && Objects.equals(routes, a.routes) && Objects.equals(autoscaling, a.autoscaling);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, image, version, replicas, port, env, resources, databases, secrets, config, readinessPath,
        livenessPath, migrate, writableRootFilesystem, routes, autoscaling);
  }
}
