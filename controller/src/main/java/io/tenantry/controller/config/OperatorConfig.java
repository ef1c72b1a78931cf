package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's configuration: one typed YAML file ({@code --config}), every field optional with
 * the default in {@link #DEFAULTS}. This class is the one place the settings are documented.
 *
 * <p>Immutable once loaded: a file is laid over the defaults ({@link #parse}), a configuration over
 * another with {@link #with}, and each result is validated as a whole before anyone sees it. Sections
 * are merged field by field; {@code plans} and lists are replaced whole (a file that names plans
 * names all of them).
 */
public record OperatorConfig(
    @JsonPropertyDescription("Prefix of tenant namespace names: <prefix><tenant name>.")
    String namespacePrefix,
    @JsonPropertyDescription("Namespace of the edge (ingress) that may reach tenant apps.")
    String edgeNamespace,
    @JsonPropertyDescription("Namespace of the cluster DNS, which tenant pods may reach on port 53.")
    String dnsNamespace,
    @JsonPropertyDescription("Reserved namespace holding the template secrets.")
    String templateNamespace,
    @JsonPropertyDescription("The cluster's DNS domain: a database's binding names its Service as <service>.<namespace>.svc.<clusterDomain>.")
    String clusterDomain,
    @JsonPropertyDescription("Namespace of the operator's leader-election Lease.")
    String operatorNamespace,
    @JsonPropertyDescription("Worker threads syncing tenants.")
    int workers,
    @JsonPropertyDescription("More worker threads that sync only tenants just bound to a signup (their customer waits for the first page), so that a burst of signups never waits for workers busy with other tenants; 0: bound tenants only go ahead in the one queue.")
    int boundWorkers,
    @JsonPropertyDescription("Seconds between full resyncs of the informer caches (each tenant re-queued).")
    int resyncPeriodSeconds,
    @JsonPropertyDescription("Port of the allocation API (POST /v1/allocations), within the http* limits below.")
    int httpPort,
    @JsonPropertyDescription("Port of /healthz, /readyz and /metrics, on a listener with threads of its own: no load on httpPort can fail a health check.")
    int probePort,
    @JsonPropertyDescription("Requests httpPort handles at once on threads, counted apart for the allocation API and for the other routes (the edge gate): an allocation holds one while it waits on Datastore and Kubernetes; an answer waiting for its tenant to serve (?wait=) holds none.")
    int httpThreads,
    @JsonPropertyDescription("Requests on httpPort that may wait for one of the httpThreads (the allocation API's, or the other routes'); more are answered 503 with Retry-After at once.")
    int httpQueue,
    @JsonPropertyDescription("Connections open at once on httpPort; at the cap no more are accepted (they wait in the kernel's backlog) until one closes, and open ones idle for 1 s are closed. A connection waiting for bytes holds no thread.")
    int httpMaxConnections,
    @JsonPropertyDescription("Seconds a client has to send a request (headers and body) from its first byte, however it paces its bytes: headers late, the connection is closed; the body late, 408. A connection silent for the shorter of the two timeouts is closed. Also on probePort.")
    int httpReadTimeoutSeconds,
    @JsonPropertyDescription("Seconds an answer's write may make no progress: a client that does not read it is cut off. Also on probePort.")
    int httpWriteTimeoutSeconds,
    @JsonPropertyDescription("Tenants that may have unfinished rollouts at once.")
    int maxConcurrentRollouts,
    @JsonPropertyDescription("Seconds a tenant may take to roll out its workload changes before it is marked Degraded and its slot freed.")
    int rolloutDeadlineSeconds,
    @JsonPropertyDescription("Deprecated (goes in the next release; a warning is logged): leave every app Deployment's replicas to"
        + " another controller. Use spec.apps[].autoscaling instead.")
    boolean appReplicasManagedExternally,
    @JsonPropertyDescription("Retry backoff of failing syncs.")
    RateLimits rateLimits,
    @JsonPropertyDescription("Leader election among replicas.")
    LeaderElection leaderElection,
    @JsonPropertyDescription("Images of the database engines.")
    DatabaseImages databaseImages,
    @JsonPropertyDescription("The encrypted secret store.")
    SecretStore secretStore,
    @JsonPropertyDescription("The fleet records.")
    Fleet fleet,
    @JsonPropertyDescription("The signup allocation API.")
    Allocation allocation,
    @JsonPropertyDescription("How customers' traffic reaches their tenants.")
    Routing routing,
    @JsonPropertyDescription("Backups of the tenants' databases (each plan says when and how many are kept).")
    Backups backups,
    @JsonPropertyDescription("Plans by name; spec.plan selects one.")
    Map<String, Plan> plans) {

  /** Every setting's default, as a configuration file would say it ({@code ${user.home}} is the operator's home). */
  static final String DEFAULTS = """
      namespacePrefix: tenant-
      edgeNamespace: tenantry-edge
      dnsNamespace: kube-system
      templateNamespace: tenantry-templates
      clusterDomain: cluster.local
      operatorNamespace: tenantry-system
      workers: 4
      boundWorkers: 4
      resyncPeriodSeconds: 600
      httpPort: 8080
      probePort: 8081
      httpThreads: 32
      httpQueue: 64
      httpMaxConnections: 256
      httpReadTimeoutSeconds: 10
      httpWriteTimeoutSeconds: 10
      maxConcurrentRollouts: 10
      rolloutDeadlineSeconds: 600
      appReplicasManagedExternally: false
      rateLimits: {baseDelayMillis: 5, maxDelaySeconds: 60, qps: 10, burst: 100}
      leaderElection: {enabled: true, leaseName: tenantry-operator, leaseDurationSeconds: 15, renewDeadlineSeconds: 10,
                       retryPeriodSeconds: 2}
      databaseImages: {postgres: docker.io/library/postgres, mysql: docker.io/library/mysql, redis: docker.io/library/redis,
                       pgbouncer: "ghcr.io/cloudnative-pg/pgbouncer:1.24.0"}
      secretStore: {location: "file:${user.home}/.local/share/tenantry/secret-store", templateSyncSeconds: 60,
                    maxTemplateDeletionShare: 0.5}
      fleet: {datastoreNamespace: tenantry, clusterName: local, kubeconfigs: []}
      allocation: {enabled: false, defaultPool: default, maxRequestBytes: 4096, retryAfterSeconds: 10, clusterRefreshSeconds: 30,
                  holdDuringSignupBursts: true, servingProbeAddress: "", tlsCertFile: "", tlsKeyFile: ""}
      routing: {mode: auto, baseDomain: "", scheme: https, gateway: {name: tenantry, sectionName: ""},
                ingress: {className: "", tls: false, annotations: {}}, pausedBackend: {service: tenantry-paused, port: 80},
                spareRoutesAhead: null, spareGate: {mode: service, forwardAuthAddress: ""},
                reservedSubdomains: [www, app, apps, api, admin, administrator, root, login, logout, signin, signup, register,
                                     auth, oauth, sso, id, account, accounts, billing, pay, payments, checkout, status, docs,
                                     help, support, blog, news, about, dashboard, console, portal, manage, cdn, static,
                                     assets, media, files, download, downloads, mail, email, webmail, smtp, imap, pop,
                                     pop3, mx, ns, ns1, ns2, dns, ftp, sftp, ssh, vpn, autodiscover, autoconfig, wpad,
                                     git, dev, staging, stage, test, qa, demo, sandbox, preview, internal, intranet,
                                     localhost]}
      backups: {enabled: false, location: "file:${user.home}/.local/share/tenantry/backups", maxConcurrent: 4,
                transferPort: 8082, transferUrl: "", agentImage: "tenantry-operator:0.1.0", purgeDelay: 7d,
                crossTenantRestores: false, keepReplacedFor: 7d, keepArchiveFor: 30d}
      plans:
        standard:
          quota: {requests.cpu: "4", requests.memory: 8Gi, limits.cpu: "8", limits.memory: 16Gi, requests.storage: 100Gi,
                  requests.ephemeral-storage: 8Gi, limits.ephemeral-storage: 16Gi,
                  persistentvolumeclaims: "10", pods: "50", services.loadbalancers: "0", services.nodeports: "0"}
          defaultRequest: {cpu: 100m, memory: 128Mi, ephemeral-storage: 256Mi}
          defaultLimit: {cpu: "1", memory: 512Mi, ephemeral-storage: 1Gi}
          egress:
            - {cidr: 0.0.0.0/0, except: [10.0.0.0/8, 100.64.0.0/10, 172.16.0.0/12, 192.168.0.0/16]}
            - {cidr: "::/0", except: ["fc00::/7"]}
      """;

  /** Fields whose value a file replaces whole instead of merging into. */
  private static final Set<String> REPLACED_WHOLE = Set.of("plans");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  public OperatorConfig {
    plans = plans == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(plans));
  }

  /** Per-tenant retry backoff: exponential per tenant, combined (max-of) with a global token bucket. */
  public record RateLimits(
      @JsonPropertyDescription("First retry delay of a failing tenant, in milliseconds; doubles with each further failure.")
      long baseDelayMillis,
      @JsonPropertyDescription("Longest retry delay of a failing tenant, in seconds. 60 by default rather than client-go's 1000: a tenant that failed while a store or the API server was down is retried within a minute of its return.")
      long maxDelaySeconds,
      @JsonPropertyDescription("Retries per second across all tenants (the token bucket's rate).")
      double qps,
      @JsonPropertyDescription("Retries the token bucket lets through at once.")
      int burst) {
  }

  /** Leader election on a coordination.k8s.io Lease. */
  public record LeaderElection(
      @JsonPropertyDescription("Run informers and workers only while holding the Lease; off: this process always leads (one replica only).")
      boolean enabled,
      @JsonPropertyDescription("Name of the Lease, in operatorNamespace.")
      String leaseName,
      @JsonPropertyDescription("Seconds a standby waits after the last renewal before it takes the lease.")
      int leaseDurationSeconds,
      @JsonPropertyDescription("Seconds the leader keeps trying to renew before it gives up and exits; shorter than leaseDurationSeconds.")
      int renewDeadlineSeconds,
      @JsonPropertyDescription("Seconds between two attempts to take or renew the lease.")
      int retryPeriodSeconds) {
  }

  /** Where the encrypted secrets live, and how often the template namespace is refreshed from there. */
  public record SecretStore(
      @JsonPropertyDescription("file:<directory> (the embedded default, with a local Tink keyset) or gs://<bucket> (with a Cloud KMS key).")
      String location,
      @JsonPropertyDescription("For file: stores, the Tink keyset file; never created by the operator (a new store and its keyset: tenantry-secrets init). Default: <directory>/keyset.json.")
      String keysetFile,
      @JsonPropertyDescription("For gs:// stores, the Cloud KMS key: projects/P/locations/L/keyRings/R/cryptoKeys/K.")
      String kmsKeyName,
      @JsonPropertyDescription("Seconds between two refreshes of the template namespace from the store.")
      int templateSyncSeconds,
      @JsonPropertyDescription("Largest share (0 to 1) of the template Secrets one refresh may delete; a refresh that would delete more, or every one (the store lists none), deletes nothing and fails, reported in each tenant's SecretsSynced condition.")
      double maxTemplateDeletionShare) {
  }

  /**
   * Where backups go and how their Jobs reach the operator. Each backup is encrypted by its Job with
   * a key of its own, wrapped by the secret store's key (its keyset, or its Cloud KMS key).
   */
  public record Backups(
      @JsonPropertyDescription("Back up the databases of Active tenants as their plans say.")
      boolean enabled,
      @JsonPropertyDescription("file:<directory> (the embedded default) or gs://<bucket>. The directory must exist.")
      String location,
      @JsonPropertyDescription("Backup Jobs that may run at once in this cluster; more wait for a free slot.")
      int maxConcurrent,
      @JsonPropertyDescription("Port of the transfer endpoint, through which backup Jobs upload (and restores download) one object each.")
      int transferPort,
      @JsonPropertyDescription("URL at which backup Jobs reach the transfer endpoint; empty: http://tenantry-operator.<operatorNamespace>.svc.<clusterDomain>:<transferPort>.")
      String transferUrl,
      @JsonPropertyDescription("Image of the backup agent: the operator's own image.")
      String agentImage,
      @JsonPropertyDescription("How long a purged tenant's backups are kept before they are deleted, from its purge, e.g. 7d (a duration such as 30m, 4h or 7d). The deletion runs hourly, so it comes up to an hour later.")
      String purgeDelay,
      @JsonPropertyDescription("Let spec.databases[].restoreFrom name another tenant's backup (<tenant>/<id or latest>): tenant cloning. Off: such a restore is refused (condition Restored, reason CrossTenantRestoreRefused).")
      boolean crossTenantRestores,
      @JsonPropertyDescription("How long the data a restore replaced is kept (as the database <name>_before_<time>) before the first backup after that drops it, and a major upgrade's old volume before it is deleted, e.g. 7d.")
      String keepReplacedFor,
      @JsonPropertyDescription("How long an archive's backups are kept, whatever the plan's retention, after a reactivation restored the tenant from them, e.g. 30d (while the tenant is Archived they are always kept).")
      String keepArchiveFor) {

    /** {@link #purgeDelay} as a duration. */
    public Duration purgeDelayDuration() {
      return BackupPolicy.parse(purgeDelay);
    }

    /** {@link #keepArchiveFor} as a duration. */
    public Duration keepArchiveForDuration() {
      return BackupPolicy.parse(keepArchiveFor);
    }

    /** {@link #keepReplacedFor} as a duration. */
    public Duration keepReplacedForDuration() {
      return BackupPolicy.parse(keepReplacedFor);
    }
  }

  /** The transfer endpoint's URL as backup Jobs reach it. */
  public String backupTransferUrl() {
    return backups().transferUrl() == null || backups().transferUrl().isBlank()
        ? "http://tenantry-operator." + operatorNamespace() + ".svc." + clusterDomain() + ":" + backups().transferPort()
        : backups().transferUrl();
  }

  /** The fleet records in Cloud Datastore (clusters, placements, allocations); off without a project. */
  public record Fleet(
      @JsonPropertyDescription("Google Cloud project of the Datastore holding the fleet records; empty: no fleet records.")
      String datastoreProjectId,
      @JsonPropertyDescription("Datastore namespace of the fleet records.")
      String datastoreNamespace,
      @JsonPropertyDescription("This cluster's name in the fleet (a DNS label); the operator registers it when the fleet lacks it.")
      String clusterName,
      @JsonPropertyDescription("The kubeconfig context that reaches this cluster, recorded when registering it; empty: clusterName.")
      String clusterContext,
      @JsonPropertyDescription("Kubeconfig files whose contexts reach the fleet's other clusters, to allocate from them; the credentials stay in these files.")
      List<String> kubeconfigs) {

    public Fleet {
      kubeconfigs = kubeconfigs == null ? List.of() : List.copyOf(kubeconfigs);
    }

    public String clusterContextOrName() {
      return clusterContext == null || clusterContext.isBlank() ? clusterName : clusterContext;
    }
  }

  /** The signup allocation API, {@code POST /v1/allocations} on {@link #httpPort}. */
  public record Allocation(
      @JsonPropertyDescription("Serve the allocation API; needs fleet.datastoreProjectId (the allocation records) and tokenFile.")
      boolean enabled,
      @JsonPropertyDescription("File holding the bearer token callers must present (surrounding whitespace ignored).")
      String tokenFile,
      @JsonPropertyDescription("The SparePool of requests that name none.")
      String defaultPool,
      @JsonPropertyDescription("Largest request body accepted, in bytes; a larger one is answered 413.")
      int maxRequestBytes,
      @JsonPropertyDescription("Retry-After, in seconds, of a 503 when no spare is Ready: about the time to build one.")
      int retryAfterSeconds,
      @JsonPropertyDescription("Seconds between reads of the registered clusters (and checks for allocations a killed process left unbound).")
      int clusterRefreshSeconds,
      @JsonPropertyDescription("In a burst of signups, hold each signup's fleet record and the pool's replacements until signups pause for a second (at most 10 s; the replacements as long as half the pool's buffer is Ready), so that their writes do not slow the binds; false: write them at once. The bound tenant's own sync (its route, identity and status) is never held.")
      boolean holdDuringSignupBursts,
      @JsonPropertyDescription("host:port of an HTTP listener of the edge (the Gateway's or ingress controller's Service) this operator can reach. When set, an allocation answer says serving only once a GET / for the tenant's hostname there is answered with neither 404 nor 503; empty: the tenant's status alone decides (the edge may still be reloading its routes).")
      String servingProbeAddress,
      @JsonPropertyDescription("PEM certificate chain of the API's TLS (tls.crt of a cert-manager Secret), re-read when it changes; empty with tlsKeyFile: plain HTTP.")
      String tlsCertFile,
      @JsonPropertyDescription("PEM private key of tlsCertFile (PKCS#1 RSA as cert-manager writes it, or PKCS#8); empty with tlsCertFile: plain HTTP.")
      String tlsKeyFile) {

    /** Whether the allocation API serves TLS (httpPort then speaks HTTPS, and HTTP/2 by ALPN). */
    public boolean tls() {
      return tlsCertFile != null && !tlsCertFile.isBlank();
    }
  }

  /**
   * Routes from the edge to tenants: an HTTPRoute (Gateway API) or an Ingress per routed tenant,
   * for {@code <subdomain>.<baseDomain>} and its {@code spec.hostnames}. Off without a baseDomain.
   */
  public record Routing(
      @JsonPropertyDescription("gateway (an HTTPRoute per tenant on the shared Gateway), ingress (an Ingress per tenant), none, or auto: gateway when the cluster serves the Gateway API's HTTPRoute, else ingress.")
      RoutingMode mode,
      @JsonPropertyDescription("Tenants are reached at <spec.subdomain, default its name>.<baseDomain>; empty: no tenant is routed.")
      String baseDomain,
      @JsonPropertyDescription("Scheme of the URLs in status.urls and in allocation answers: https or http.")
      String scheme,
      @JsonPropertyDescription("The shared Gateway, in edgeNamespace, that tenants' HTTPRoutes attach to (its listeners' allowedRoutes must admit the tenant namespaces).")
      Gateway gateway,
      @JsonPropertyDescription("Settings of the Ingresses in ingress mode.")
      Ingress ingress,
      @JsonPropertyDescription("The Service in edgeNamespace that answers for Frozen tenants (a \"paused\" page) instead of their apps.")
      PausedBackend pausedBackend,
      @JsonPropertyDescription("How many of a SparePool's Ready spares have their route written ahead, gated: those the allocation API takes next (the longest standing). Bound, such a spare serves as soon as its Services open; one bound beyond them gets its route at the bind, and its customer waits for the edge to load it. Unset (the default): every Ready spare, so that a stream of signups as long as the buffer costs the edge no new route. A number lowers the routes the edge holds (each costs it on every rebuild) for big pools that see short bursts: size it for the longest stream of signups (rate times duration), as once a stream has used up the line, each further signup costs the edge a new route while the stream lasts. 0: none.")
      Integer spareRoutesAhead,
      @JsonPropertyDescription("How a spare whose route is written ahead is kept from strangers until its customer is bound (docs/routing.md).")
      SpareGateSettings spareGate,
      @JsonPropertyDescription("Subdomains no tenant may take under baseDomain (DNS labels; a list replaces the default whole). The default keeps the product's own hosts (www, app, api, admin, login, auth, sso, account, billing, status, docs, support ...), the names mail, DNS and proxy clients look up by convention (mail, smtp, imap, pop, mx, ns1, ns2, autodiscover, autoconfig, wpad ...) and environment names (dev, staging, test, internal, localhost): a tenant holding one could phish the product's customers, receive its mail or be taken for its infrastructure. A signup naming one is refused (400, field subdomain); a Tenant whose spec.subdomain, or without one its name, is one is refused by the chart's admission policy tenantry-reserved-subdomains, rendered from the same list.")
      List<String> reservedSubdomains) {

    public Routing {
      reservedSubdomains = reservedSubdomains == null ? List.of() : List.copyOf(reservedSubdomains);
    }

    /** How many of a pool's Ready spares are routed ahead: {@code spareRoutesAhead}, or all of them when unset. */
    public int routesAhead() {
      return spareRoutesAhead == null ? Integer.MAX_VALUE : spareRoutesAhead;
    }

    /** Whether tenants get routes at all. */
    public boolean enabled() {
      return mode != RoutingMode.NONE && baseDomain != null && !baseDomain.isEmpty();
    }
  }

  /** How spares with a route are kept closed until bound: by their Services, or at the edge. */
  public record SpareGateSettings(
      @JsonPropertyDescription("service: a spare's exposed Services select no pod until the bind opens them, with any Gateway API implementation or Ingress controller; the customer's first page then waits for the edge to load the new endpoints. forwardAuth: a spare's Services are open and its HTTPRoute names a Traefik Middleware (filter ExtensionRef, traefik.io/Middleware) that asks the operator, at forwardAuthAddress, whether the tenant is bound; the first page needs no change at the edge. Needs routing mode gateway and Traefik with its kubernetesCRD provider.")
      SpareGateMode mode,
      @JsonPropertyDescription("In forwardAuth mode: the operator's HTTP listener as the edge reaches it, http(s)://host:port (the gate answers at /v1/gate/<tenant>), e.g. http://tenantry.tenantry-system.svc:8080.")
      String forwardAuthAddress) {
  }

  /** How spares with a route are kept closed until bound. */
  public enum SpareGateMode {
    @com.fasterxml.jackson.annotation.JsonProperty("service") SERVICE,
    @com.fasterxml.jackson.annotation.JsonProperty("forwardAuth") FORWARD_AUTH
  }

  /** How tenants are routed: {@code auto} is resolved to gateway or ingress when the operator starts. */
  public enum RoutingMode {
    @com.fasterxml.jackson.annotation.JsonProperty("auto") AUTO,
    @com.fasterxml.jackson.annotation.JsonProperty("gateway") GATEWAY,
    @com.fasterxml.jackson.annotation.JsonProperty("ingress") INGRESS,
    @com.fasterxml.jackson.annotation.JsonProperty("none") NONE
  }

  /** A Gateway API Gateway, in edgeNamespace. */
  public record Gateway(
      @JsonPropertyDescription("Name of the Gateway.")
      String name,
      @JsonPropertyDescription("One listener of the Gateway to attach to; empty: all of them.")
      String sectionName) {
  }

  /** The Ingresses of ingress mode. */
  public record Ingress(
      @JsonPropertyDescription("spec.ingressClassName of tenant Ingresses; empty: the cluster's default class.")
      String className,
      @JsonPropertyDescription("Give each tenant Ingress a TLS section for all its hostnames, with the Secret tenant-tls in its namespace (made by cert-manager with the matching annotation).")
      boolean tls,
      @JsonPropertyDescription("Annotations of every tenant Ingress, e.g. cert-manager.io/cluster-issuer or external-dns.alpha.kubernetes.io/ttl.")
      Map<String, String> annotations) {

    public Ingress {
      annotations = annotations == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
    }
  }

  /** A Service of the edge namespace. */
  public record PausedBackend(
      @JsonPropertyDescription("Name of the Service.")
      String service,
      @JsonPropertyDescription("Its port.")
      int port) {
  }

  /** Images of the database engines, whose tag is spec.databases[].version, and of their poolers, pinned with its tag. */
  public record DatabaseImages(
      @JsonPropertyDescription("Image of PostgreSQL databases, without tag.")
      String postgres,
      @JsonPropertyDescription("Image of MySQL databases, without tag.")
      String mysql,
      @JsonPropertyDescription("Image of Redis databases, without tag.")
      String redis,
      @JsonPropertyDescription("Image of the PgBouncer poolers (spec.databases[].pooler), with its tag: PgBouncer 1.21 or newer (the"
          + " rendered configuration sets max_prepared_statements); /usr/bin/pgbouncer is run, as user 998.")
      String pgbouncer) {
  }

  public static OperatorConfig defaults() {
    return parse("{}");
  }

  /** Reads a config file; unknown or malformed fields fail with the field named. */
  public static OperatorConfig load(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read config " + file, e);
    }
  }

  /** Parses a YAML configuration over the defaults and validates it. */
  public static OperatorConfig parse(String yaml) {
    return over(tree(DEFAULTS.replace("${user.home}", System.getProperty("user.home"))), yaml);
  }

  /** This configuration with what {@code yaml} names changed (the same merge as a file over the defaults), validated. */
  public OperatorConfig with(String yaml) {
    return over(YAML.valueToTree(this), yaml);
  }

  private static OperatorConfig over(ObjectNode base, String yaml) {
    merge(base, tree(yaml));
    OperatorConfig config;
    try {
      config = YAML.treeToValue(base, OperatorConfig.class);
    } catch (JsonMappingException e) {
      String field = e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
          .collect(Collectors.joining(".")).replace(".[", "[");
      throw new IllegalArgumentException("invalid operator configuration: " + field + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid operator configuration: " + e.getMessage(), e);
    }
    config.validate();
    return config;
  }

  private static ObjectNode tree(String yaml) {
    try {
      JsonNode node = YAML.readTree(yaml);
      if (node != null && !node.isNull() && !node.isMissingNode() && !node.isObject()) {
        throw new IllegalArgumentException("invalid operator configuration: not a mapping of settings");
      }
      return node == null || !node.isObject() ? YAML.createObjectNode() : (ObjectNode) node;
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid operator configuration: " + e.getMessage(), e);
    }
  }

  /** Lays {@code overrides} over {@code base}: sections field by field, everything else replaced. */
  private static void merge(ObjectNode base, ObjectNode overrides) {
    overrides.fields().forEachRemaining(entry -> {
      JsonNode current = base.get(entry.getKey());
      if (current instanceof ObjectNode section && entry.getValue() instanceof ObjectNode override
          && !REPLACED_WHOLE.contains(entry.getKey())) {
        merge(section, override);
      } else {
        base.set(entry.getKey(), entry.getValue());
      }
    });
  }

  public Duration resyncPeriod() {
    return Duration.ofSeconds(resyncPeriodSeconds);
  }

  /** Settings accepted but on their way out, each with what replaces it. */
  public List<String> warnings() {
    return appReplicasManagedExternally()
        ? List.of("appReplicasManagedExternally is deprecated and goes in the next release: set spec.apps[].autoscaling on"
            + " the apps an HPA scales (the operator makes the HPA, and hands the replicas over from their live value)")
        : List.of();
  }

  /** Throws naming every field that is out of range. */
  private void validate() {
    List<String> errors = new ArrayList<>();
    if (namespacePrefix() == null || !namespacePrefix().matches("^[a-z]([-a-z0-9]*)?$") || namespacePrefix().length() > 15) {
      errors.add("namespacePrefix: must be lowercase letters, digits and '-', starting with a letter, at most 15 characters");
    }
    if (workers() < 1) {
      errors.add("workers: must be at least 1");
    }
    if (boundWorkers() < 0) {
      errors.add("boundWorkers: must be at least 0");
    }
    if (resyncPeriodSeconds() < 0) {
      errors.add("resyncPeriodSeconds: must not be negative");
    }
    if (maxConcurrentRollouts() < 1) {
      errors.add("maxConcurrentRollouts: must be at least 1");
    }
    if (rolloutDeadlineSeconds() < 1) {
      errors.add("rolloutDeadlineSeconds: must be at least 1");
    }
    if (rateLimits().baseDelayMillis() < 1 || rateLimits().maxDelaySeconds() < 1 || rateLimits().qps() <= 0 || rateLimits().burst() < 1) {
      errors.add("rateLimits: baseDelayMillis, maxDelaySeconds, qps and burst must be positive");
    }
    if (leaderElection().renewDeadlineSeconds() >= leaderElection().leaseDurationSeconds()) {
      errors.add("leaderElection.renewDeadlineSeconds: must be shorter than leaseDurationSeconds");
    }
    if (dnsNamespace() == null || !dnsNamespace().matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")) {
      errors.add("dnsNamespace: must be a namespace name");
    }
    if (clusterDomain() == null || !clusterDomain().matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")) {
      errors.add("clusterDomain: must be a DNS name such as cluster.local");
    }
    validateServices(errors);
    validateHttp(errors);
    validateRouting(errors);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("invalid operator configuration: " + String.join("; ", errors));
    }
  }

  private void validateRouting(List<String> errors) {
    String dnsName = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+";
    if (routing().baseDomain() == null || !routing().baseDomain().isEmpty() && !routing().baseDomain().matches(dnsName)) {
      errors.add("routing.baseDomain: must be a lowercase DNS name of at least two labels, or empty (no routes)");
    }
    if (!List.of("https", "http").contains(routing().scheme())) {
      errors.add("routing.scheme: must be https or http");
    }
    if (routing().gateway().name() == null || !routing().gateway().name().matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
      errors.add("routing.gateway.name: must be the name of a Gateway");
    }
    if (routing().pausedBackend().service() == null || !routing().pausedBackend().service().matches("[a-z]([-a-z0-9]*[a-z0-9])?")) {
      errors.add("routing.pausedBackend.service: must be the name of a Service");
    }
    if (routing().pausedBackend().port() < 1 || routing().pausedBackend().port() > 65535) {
      errors.add("routing.pausedBackend.port: must be a port between 1 and 65535");
    }
    if (routing().routesAhead() < 0) {
      errors.add("routing.spareRoutesAhead: must not be negative");
    }
    SpareGateSettings gate = routing().spareGate();
    if (gate.mode() == null) {
      errors.add("routing.spareGate.mode: must be service or forwardAuth");
    } else if (gate.mode() == SpareGateMode.FORWARD_AUTH) {
      if (routing().mode() == RoutingMode.INGRESS || routing().mode() == RoutingMode.NONE) {
        errors.add("routing.spareGate.mode: forwardAuth needs routing.mode gateway (or auto on a cluster with the Gateway API)");
      }
      if (gate.forwardAuthAddress() == null || !gate.forwardAuthAddress().matches("https?://[^/?#\\s]+")) {
        errors.add("routing.spareGate.forwardAuthAddress: must be http(s)://host:port, where the edge reaches the operator's HTTP listener, not "
            + gate.forwardAuthAddress());
      }
    }
    for (int i = 0; i < routing().reservedSubdomains().size(); i++) {
      String label = routing().reservedSubdomains().get(i);
      if (label == null || label.length() > 63 || !label.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
        errors.add("routing.reservedSubdomains[" + i + "]: must be a lowercase DNS label, not " + label);
      }
    }
  }

  /** The HTTP listeners' ports and limits (httpThreads is checked with the services). */
  private void validateHttp(List<String> errors) {
    if (allocation().tls() != (allocation().tlsKeyFile() != null && !allocation().tlsKeyFile().isBlank())) {
      errors.add("allocation.tlsKeyFile: tlsCertFile and tlsKeyFile go together (both empty: plain HTTP)");
    }
    if (probePort() < 0 || probePort() > 65535 || probePort() != 0 && probePort() == httpPort()) {
      errors.add("probePort: must be a port (0: any free one) other than httpPort");
    }
    if (httpQueue() < 0) {
      errors.add("httpQueue: must not be negative");
    }
    if (httpMaxConnections() < httpThreads()) {
      errors.add("httpMaxConnections: must be at least httpThreads");
    }
    if (httpReadTimeoutSeconds() < 1) {
      errors.add("httpReadTimeoutSeconds: must be at least 1");
    }
    if (httpWriteTimeoutSeconds() < 1) {
      errors.add("httpWriteTimeoutSeconds: must be at least 1");
    }
  }

  /** The secret store, fleet, allocation and plans sections. */
  private void validateServices(List<String> errors) {
    if (secretStore().location() == null
        || !(secretStore().location().startsWith("file:") || secretStore().location().startsWith("gs://"))) {
      errors.add("secretStore.location: must be file:<directory> or gs://<bucket>");
    } else if (secretStore().location().startsWith("gs://") && (secretStore().kmsKeyName() == null || secretStore().kmsKeyName().isBlank())) {
      errors.add("secretStore.kmsKeyName: required for a gs:// store");
    }
    if (secretStore().templateSyncSeconds() < 1) {
      errors.add("secretStore.templateSyncSeconds: must be at least 1");
    }
    if (!(secretStore().maxTemplateDeletionShare() >= 0 && secretStore().maxTemplateDeletionShare() <= 1)) {
      errors.add("secretStore.maxTemplateDeletionShare: must be between 0 and 1");
    }
    if (httpThreads() < 1) {
      errors.add("httpThreads: must be at least 1");
    }
    if (fleet().clusterName() == null || !fleet().clusterName().matches("^[a-z]([-a-z0-9]*[a-z0-9])?$") || fleet().clusterName().length() > 63) {
      errors.add("fleet.clusterName: must be a DNS label (lowercase letters, digits and '-', at most 63 characters)");
    }
    if (allocation().enabled()) {
      if (fleet().datastoreProjectId() == null || fleet().datastoreProjectId().isBlank()) {
        errors.add("fleet.datastoreProjectId: required when allocation.enabled (allocations are recorded in Datastore)");
      }
      if (allocation().tokenFile() == null || allocation().tokenFile().isBlank()) {
        errors.add("allocation.tokenFile: required when allocation.enabled");
      }
    }
    if (allocation().maxRequestBytes() < 256 || allocation().maxRequestBytes() > 1 << 20) {
      errors.add("allocation.maxRequestBytes: must be between 256 and 1048576");
    }
    if (allocation().retryAfterSeconds() < 1) {
      errors.add("allocation.retryAfterSeconds: must be at least 1");
    }
    if (allocation().clusterRefreshSeconds() < 1) {
      errors.add("allocation.clusterRefreshSeconds: must be at least 1");
    }
    String probe = allocation().servingProbeAddress();
    if (!probe.isEmpty() && !probe.matches("[^\\s/]+:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])")) {
      errors.add("allocation.servingProbeAddress: must be host:port (an HTTP listener of the edge), not " + probe);
    }
    validateBackups(errors);
    if (plans() == null || plans().isEmpty()) {
      errors.add("plans: at least one plan is required");
    } else {
      plans().forEach((name, plan) -> plan.validate("plans." + name, errors));
    }
  }

  private void validateBackups(List<String> errors) {
    if (backups().location() == null
        || !(backups().location().startsWith("file:") || backups().location().startsWith("gs://"))) {
      errors.add("backups.location: must be file:<directory> or gs://<bucket>");
    }
    if (backups().maxConcurrent() < 1) {
      errors.add("backups.maxConcurrent: must be at least 1");
    }
    if (backups().transferPort() < 1 || backups().transferPort() > 65535) {
      errors.add("backups.transferPort: must be a port, 1 to 65535");
    }
    try {
      if (backups().purgeDelayDuration().isZero()) {
        errors.add("backups.purgeDelay: '" + backups().purgeDelay() + "' must be positive");
      }
    } catch (IllegalArgumentException e) {
      errors.add("backups.purgeDelay: '" + backups().purgeDelay() + "' is not a duration such as 30m, 4h or 7d");
    }
    try {
      backups().keepReplacedForDuration();
    } catch (IllegalArgumentException e) {
      errors.add("backups.keepReplacedFor: '" + backups().keepReplacedFor() + "' is not a duration such as 30m, 4h or 7d");
    }
    try {
      backups().keepArchiveForDuration();
    } catch (IllegalArgumentException e) {
      errors.add("backups.keepArchiveFor: '" + backups().keepArchiveFor() + "' is not a duration such as 30m, 4h or 7d");
    }
  }
}
