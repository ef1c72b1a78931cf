package io.tenantry.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OperatorConfigTest {

  @Test
  void everyFieldHasADefault() {
    OperatorConfig config = OperatorConfig.parse("{}");
    assertThat(config.namespacePrefix()).isEqualTo("tenant-");
    assertThat(config.plans()).containsKey("standard");
    assertThat(config.maxConcurrentRollouts()).isEqualTo(10);
  }

  @Test
  void aFileOverridesWhatItNames() {
    OperatorConfig config = OperatorConfig.parse("""
        workers: 8
        leaderElection:
          leaseDurationSeconds: 30
        plans:
          gold:
            quota: {pods: "100"}
        """);
    assertThat(config.workers()).isEqualTo(8);
    assertThat(config.leaderElection().leaseDurationSeconds()).isEqualTo(30);
    assertThat(config.leaderElection().renewDeadlineSeconds()).isEqualTo(10);
    assertThat(config.plans()).containsOnlyKeys("gold");
  }

  @Test
  void anUnknownFieldIsRefusedByName() {
    assertThatThrownBy(() -> OperatorConfig.parse("leaderElection:\n  leaseDuration: 30\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid operator configuration: leaderElection.leaseDuration: Unrecognized field \"leaseDuration\"");
  }

  @Test
  void aValueOfTheWrongTypeIsRefusedByName() {
    assertThatThrownBy(() -> OperatorConfig.parse("workers: many\n"))
        .hasMessageStartingWith("invalid operator configuration: workers: ");
  }

  @Test
  void outOfRangeValuesAreAllNamed() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        workers: 0
        namespacePrefix: Tenant_
        plans:
          standard:
            quota: {requests.cpu: lots}
        """))
        .hasMessage("invalid operator configuration: namespacePrefix: must be lowercase letters, digits and '-', starting"
            + " with a letter, at most 15 characters; workers: must be at least 1; plans.standard.quota.requests.cpu: 'lots'"
            + " is not a quantity");
  }

  @Test
  void aPlansPodSettingsAreCheckedFieldByField() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        plans:
          standard:
            priorityClassName: Gold_Tier
            tolerations:
              - {key: dedicated, operator: Exists, value: gold}
              - {key: "bad key", effect: Sometimes}
              - {operator: Equal}
        """))
        .hasMessage("invalid operator configuration: plans.standard.priorityClassName: 'Gold_Tier' is not a PriorityClass name;"
            + " plans.standard.tolerations[0].value: must be empty with operator Exists;"
            + " plans.standard.tolerations[1].key: 'bad key' is not a taint key (a qualified name such as dedicated or example.com/tier);"
            + " plans.standard.tolerations[1].effect: must be NoSchedule, PreferNoSchedule, NoExecute or empty, got 'Sometimes';"
            + " plans.standard.tolerations[2].key: required with operator Equal");
  }

  @Test
  void aPlansBackupPolicyDefaultsFieldByFieldAndIsCheckedFieldByField() {
    OperatorConfig config = OperatorConfig.parse("""
        plans:
          standard: {backup: {every: 6h, window: 1h}}
        """);
    BackupPolicy backup = config.plans().get("standard").backup();
    assertThat(backup).isEqualTo(new BackupPolicy("6h", "01:00", "1h", 7, 4, 7, "2h"));
    assertThat(backup.rpo()).isEqualTo(java.time.Duration.ofHours(8));
    assertThat(BackupPolicy.DEFAULT.rpo()).as("what the stale alert holds the fleet to").isEqualTo(java.time.Duration.ofHours(26));
    assertThat(OperatorConfig.defaults().plans().get("standard").backup()).isEqualTo(BackupPolicy.DEFAULT);

    assertThatThrownBy(() -> OperatorConfig.parse("""
        plans:
          standard: {backup: {every: 30m, windowStart: "25:00", window: 2h, keepDaily: -1, deadline: soon}}
        """))
        .hasMessage("invalid operator configuration: plans.standard.backup.deadline: 'soon' is not a duration such as 30m,"
            + " 4h or 7d; plans.standard.backup.every: '30m' must be from 1h to 7d; plans.standard.backup.window: '2h' must be"
            + " positive and at most every (30m); plans.standard.backup.windowStart: '25:00' is not a time of day HH:MM;"
            + " plans.standard.backup.keepDaily: must not be negative");
  }

  @Test
  void aPurgedTenantsBackupsAreKeptSevenDaysByDefaultAndTheDelayIsChecked() {
    assertThat(OperatorConfig.defaults().backups().purgeDelayDuration()).isEqualTo(java.time.Duration.ofDays(7));
    assertThat(OperatorConfig.parse("backups: {purgeDelay: 1d12h}").backups().purgeDelayDuration())
        .isEqualTo(java.time.Duration.ofHours(36));

    assertThatThrownBy(() -> OperatorConfig.parse("backups: {purgeDelay: 7 days}"))
        .hasMessage("invalid operator configuration: backups.purgeDelay: '7 days' is not a duration such as 30m, 4h or 7d");
    assertThatThrownBy(() -> OperatorConfig.parse("backups: {purgeDelay: 0m}"))
        .hasMessage("invalid operator configuration: backups.purgeDelay: '0m' must be positive");
  }

  @Test
  void theHttpListenersHaveDefaultsAndOutOfRangeLimitsAreNamed() {
    OperatorConfig config = OperatorConfig.defaults();
    assertThat(config.httpPort()).isEqualTo(8080);
    assertThat(config.probePort()).isEqualTo(8081);
    assertThat(config.httpMaxConnections()).isGreaterThanOrEqualTo(config.httpThreads());
    assertThatThrownBy(() -> OperatorConfig.parse("""
        probePort: 8080
        httpQueue: -1
        httpMaxConnections: 8
        httpReadTimeoutSeconds: 0
        httpWriteTimeoutSeconds: 0
        """))
        .hasMessage("invalid operator configuration: probePort: must be a port (0: any free one) other than httpPort;"
            + " httpQueue: must not be negative; httpMaxConnections: must be at least httpThreads;"
            + " httpReadTimeoutSeconds: must be at least 1; httpWriteTimeoutSeconds: must be at least 1");
    assertThat(OperatorConfig.parse("{httpPort: 0, probePort: 0}").probePort()).as("both on free ports, as tests run them").isZero();
  }

  @Test
  void theAllocationApiNeedsItsRecordsAndToken() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        allocation:
          enabled: true
          maxRequestBytes: 10
        fleet:
          clusterName: East_1
        """))
        .hasMessage("invalid operator configuration: fleet.clusterName: must be a DNS label (lowercase letters, digits and '-',"
            + " at most 63 characters); fleet.datastoreProjectId: required when allocation.enabled (allocations are recorded"
            + " in Datastore); allocation.tokenFile: required when allocation.enabled; allocation.maxRequestBytes: must be"
            + " between 256 and 1048576");

    OperatorConfig config = OperatorConfig.parse("""
        allocation: {enabled: true, tokenFile: /run/secrets/token}
        fleet: {datastoreProjectId: my-project, clusterName: east-1, kubeconfigs: [/etc/fleet/west.yaml]}
        """);
    assertThat(config.allocation().defaultPool()).isEqualTo("default");
    assertThat(config.fleet().clusterContextOrName()).isEqualTo("east-1");
    assertThat(config.fleet().kubeconfigs()).containsExactly("/etc/fleet/west.yaml");
  }

  @Test
  void theReservedSubdomainsDefaultToTheProductsHostsInfrastructureNamesAndEnvironments() {
    List<String> reserved = OperatorConfig.defaults().routing().reservedSubdomains();
    assertThat(reserved).contains("www", "api", "admin", "login", "mail", "app", "auth", "status", "docs", "help", "support",
        "blog", "cdn", "static", "assets", "dashboard", "console", "portal", "billing", "account", "accounts", "signup",
        "sso", "smtp", "imap", "pop", "ftp", "ns1", "ns2", "mx", "dev", "staging", "test", "internal", "localhost",
        "autodiscover", "wpad");
    assertThat(reserved).doesNotHaveDuplicates();
    assertThatThrownBy(() -> reserved.add("shop")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aReservedSubdomainsListReplacesTheDefaultWholeAndEachEntryMustBeALabel() {
    assertThat(OperatorConfig.parse("routing: {reservedSubdomains: [www, shop]}").routing().reservedSubdomains())
        .containsExactly("www", "shop");
    assertThat(OperatorConfig.parse("routing: {reservedSubdomains: []}").routing().reservedSubdomains()).isEmpty();
    assertThatThrownBy(() -> OperatorConfig.parse("routing: {reservedSubdomains: [www, Admin, 'a.b', '-x']}"))
        .hasMessage("invalid operator configuration: routing.reservedSubdomains[1]: must be a lowercase DNS label, not Admin;"
            + " routing.reservedSubdomains[2]: must be a lowercase DNS label, not a.b;"
            + " routing.reservedSubdomains[3]: must be a lowercase DNS label, not -x");
  }

  @Test
  void everyReadySpareIsRoutedAheadUnlessALineIsSetAndALineIsNotNegative() {
    assertThat(OperatorConfig.defaults().routing().spareRoutesAhead()).isNull();
    assertThat(OperatorConfig.defaults().routing().routesAhead()).isEqualTo(Integer.MAX_VALUE);
    OperatorConfig line = OperatorConfig.parse("routing: {spareRoutesAhead: 128}");
    assertThat(line.routing().routesAhead()).isEqualTo(128);
    assertThat(line.with("{routing: {spareRoutesAhead: null}}").routing().routesAhead()).as("unset again").isEqualTo(Integer.MAX_VALUE);
    assertThat(OperatorConfig.parse("routing: {spareRoutesAhead: 0}").routing().routesAhead()).isZero();
    assertThatThrownBy(() -> OperatorConfig.parse("routing: {spareRoutesAhead: -1}"))
        .hasMessage("invalid operator configuration: routing.spareRoutesAhead: must not be negative");
  }

  @Test
  void sparesAreGatedByTheirServicesUnlessTheEdgeAsksTheOperatorWhichNeedsTheGatewayApiAndAnAddress() {
    assertThat(OperatorConfig.defaults().routing().spareGate().mode()).isEqualTo(OperatorConfig.SpareGateMode.SERVICE);
    OperatorConfig edge = OperatorConfig.parse(
        "routing: {mode: gateway, spareGate: {mode: forwardAuth, forwardAuthAddress: 'http://tenantry.tenantry-system.svc:8080'}}");
    assertThat(edge.routing().spareGate().mode()).isEqualTo(OperatorConfig.SpareGateMode.FORWARD_AUTH);
    assertThatThrownBy(() -> OperatorConfig.parse("routing: {mode: ingress, spareGate: {mode: forwardAuth, forwardAuthAddress: 'http://op:8080'}}"))
        .hasMessage("invalid operator configuration: routing.spareGate.mode: forwardAuth needs routing.mode gateway"
            + " (or auto on a cluster with the Gateway API)");
    assertThatThrownBy(() -> OperatorConfig.parse("routing: {spareGate: {mode: forwardAuth, forwardAuthAddress: 'op:8080/v1'}}"))
        .hasMessage("invalid operator configuration: routing.spareGate.forwardAuthAddress: must be http(s)://host:port, where the edge"
            + " reaches the operator's HTTP listener, not op:8080/v1");
    assertThatThrownBy(() -> OperatorConfig.parse("routing: {spareGate: {mode: null}}"))
        .hasMessage("invalid operator configuration: routing.spareGate.mode: must be service or forwardAuth");
  }

  @Test
  void aConfigurationCannotChangeOnceLoaded() {
    OperatorConfig config = OperatorConfig.defaults();
    OperatorConfig changed = config.with("{workers: 2, leaderElection: {enabled: false}}");
    assertThat(changed.workers()).isEqualTo(2);
    assertThat(changed.leaderElection().enabled()).isFalse();
    assertThat(changed.leaderElection().leaseName()).as("the rest of the section kept").isEqualTo("tenantry-operator");
    assertThat(config.workers()).as("the original is untouched").isEqualTo(4);
    assertThatThrownBy(() -> config.plans().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> config.plans().get("standard").quota().put("pods", "1"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> config.fleet().kubeconfigs().add("/etc/other")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> config.with("workers: 0")).hasMessage("invalid operator configuration: workers: must be at least 1");
  }

  @Test
  void theServingProbeAddressIsHostAndPort() {
    OperatorConfig config = OperatorConfig.defaults();
    assertThat(config.allocation().servingProbeAddress()).as("off by default").isEmpty();
    assertThat(config.with("allocation: {servingProbeAddress: 'tenantry-edge.tenantry-edge.svc:80'}").allocation()
        .servingProbeAddress()).isEqualTo("tenantry-edge.tenantry-edge.svc:80");
    for (String bad : List.of("tenantry-edge", "edge:0", "edge:65536", "http://edge:80")) {
      assertThatThrownBy(() -> config.with("allocation: {servingProbeAddress: '" + bad + "'}"))
          .hasMessage("invalid operator configuration: allocation.servingProbeAddress: must be host:port (an HTTP listener"
              + " of the edge), not " + bad);
    }
  }

  @Test
  void everySettingIsDescribed() {
    List<String> undescribed = new ArrayList<>();
    undescribed(OperatorConfig.class, "", undescribed);
    undescribed(Plan.class, "plans.*.", undescribed);
    assertThat(undescribed).isEmpty();
  }

  private static void undescribed(Class<?> type, String prefix, List<String> undescribed) {
    for (RecordComponent component : type.getRecordComponents()) {
      if (!described(type, component)) {
        undescribed.add(prefix + component.getName());
      }
      if (component.getType().isRecord() && component.getType().getEnclosingClass() == OperatorConfig.class) {
        undescribed(component.getType(), prefix + component.getName() + ".", undescribed);
      }
    }
  }

  private static boolean described(Class<?> type, RecordComponent component) {
    try {
      return type.getDeclaredField(component.getName()).isAnnotationPresent(JsonPropertyDescription.class);
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(e);
    }
  }
}
