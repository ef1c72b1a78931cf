package io.tenantry.spares.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class FleetInputTest {

  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05.123456789Z");

  private static Allocation allocation(String requestId, String organization, String email, String tenant,
                                       String cluster, String namespace) {
    return new Allocation(requestId, organization, email, tenant, "uid-" + tenant, cluster, namespace, NOW, null);
  }

  private static void assertRefused(String field, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessageStartingWith(field + ": ");
  }

  @Test
  void validAllocationIsKeptWithMicrosecondTime() {
    Allocation allocation = allocation("req-1", "Acme Inc.", "ops@acme.example", "acme", "eu-1", "tenant-acme");
    assertThat(allocation.allocatedAt()).isEqualTo(Instant.parse("2026-01-02T03:04:05.123456Z"));
  }

  @Test
  void requestIdMustBeNonEmptyShortPrintableAndNotReserved() {
    assertRefused("requestId", () -> allocation(null, "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("requestId", () -> allocation("", "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("requestId", () -> allocation("x".repeat(129), "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("requestId", () -> allocation("has space", "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("requestId", () -> allocation("tab\there", "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("requestId", () -> allocation("ünïcode", "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("requestId", () -> allocation("__key__", "Acme", "a@b.io", "acme", "eu-1", "ns"));
    assertThat(allocation("x".repeat(128), "Acme", "a@b.io", "acme", "eu-1", "ns").requestId()).hasSize(128);
  }

  @Test
  void emailMustHaveTheShapeOfAnAddress() {
    for (String email : new String[] {"", "acme", "@acme.io", "ops@", "ops@acme", "o ps@acme.io", "a@b@c.io",
        "ops@acme..io"}) {
      assertRefused("email", () -> allocation("r", "Acme", email, "acme", "eu-1", "ns"));
    }
    assertRefused("email", () -> allocation("r", "Acme", "a@" + "b".repeat(250) + ".io", "acme", "eu-1", "ns"));
  }

  @Test
  void namesMustBeDnsLabels() {
    assertRefused("tenant", () -> allocation("r", "Acme", "a@b.io", "Acme", "eu-1", "ns"));
    assertRefused("tenant", () -> allocation("r", "Acme", "a@b.io", "1acme", "eu-1", "ns"));
    assertRefused("tenant", () -> allocation("r", "Acme", "a@b.io", "a".repeat(64), "eu-1", "ns"));
    assertRefused("cluster", () -> allocation("r", "Acme", "a@b.io", "acme", "eu_1", "ns"));
    assertRefused("cluster", () -> allocation("r", "Acme", "a@b.io", "acme", "eu-", "ns"));
    assertRefused("namespace", () -> allocation("r", "Acme", "a@b.io", "acme", "eu-1", "ns.x"));
    // Namespaces follow RFC 1123, so a leading digit is fine there.
    assertThat(allocation("r", "Acme", "a@b.io", "acme", "eu-1", "1ns").namespace()).isEqualTo("1ns");
  }

  @Test
  void organizationMustBeNonBlankWithoutControlCharacters() {
    assertRefused("organization", () -> allocation("r", " ", "a@b.io", "acme", "eu-1", "ns"));
    assertRefused("organization", () -> allocation("r", "Ac\nme", "a@b.io", "acme", "eu-1", "ns"));
  }

  @Test
  void allocatedAtIsRequired() {
    assertRefused("allocatedAt", () -> new Allocation("r", "Acme", "a@b.io", "acme", "uid-acme", "eu-1", "ns", null, null));
  }

  @Test
  void aSubdomainIsOptionalAndADnsLabelWhenGiven() {
    assertThat(new Allocation("r", "Acme", "a@b.io", "acme", "uid-acme", "eu-1", "ns", NOW, "shop").label()).isEqualTo("shop");
    assertThat(allocation("r", "Acme", "a@b.io", "acme", "eu-1", "ns").label()).isEqualTo("acme");
    assertRefused("subdomain", () -> new Allocation("r", "Acme", "a@b.io", "acme", "uid-acme", "eu-1", "ns", NOW, "Shop"));
    assertRefused("subdomain", () -> new Allocation("r", "Acme", "a@b.io", "acme", "uid-acme", "eu-1", "ns", NOW, "shop.acme"));
  }

  @Test
  void clusterFieldsAreValidated() {
    assertRefused("cluster", () -> new Cluster("EU", "ctx", Map.of(), NOW));
    assertRefused("context", () -> new Cluster("eu-1", "", Map.of(), NOW));
    assertRefused("context", () -> new Cluster("eu-1", "my context", Map.of(), NOW));
    assertRefused("labels", () -> new Cluster("eu-1", "ctx", Map.of("bad key", "x"), NOW));
    assertRefused("labels", () -> new Cluster("eu-1", "ctx", Map.of("Example.com/tier", "x"), NOW));
    assertRefused("labels", () -> new Cluster("eu-1", "ctx", Map.of("tier", "not valid!"), NOW));
    assertRefused("registeredAt", () -> new Cluster("eu-1", "ctx", Map.of(), null));
    Cluster cluster = new Cluster("eu-1", "gke_proj_europe-west1_eu-1",
        Map.of(Cluster.REGION_LABEL, "europe-west1", "tier", ""), NOW);
    assertThat(cluster.labels()).containsExactly(Map.entry("tier", ""),
        Map.entry(Cluster.REGION_LABEL, "europe-west1"));
  }

  @Test
  void hostnamesAreLowercaseDnsNamesOfAtLeastTwoLabels() {
    for (String hostname : new String[] {"app.example.com", "a.io", "1st.example.com", "xn--bcher-kva.example",
        "a-b.c-d.example", ("a".repeat(63) + ".").repeat(3) + "b".repeat(61)}) {
      assertThat(FleetNames.requireHostname("hostname", hostname)).isEqualTo(hostname);
    }
    for (String hostname : new String[] {"", "localhost", "*.example.com", "app.*.example.com", "*",
        "-app.example.com", "app-.example.com", "app..example.com", ".example.com", "example.com.",
        "app_1.example.com", "app example.com", " app.example.com", "ünï.example.com", "10.0.0.1",
        "a".repeat(64) + ".example.com", ("a".repeat(63) + ".").repeat(3) + "b".repeat(62)}) {
      assertRefused("hostname", () -> FleetNames.requireHostname("hostname", hostname));
    }
    assertRefused("hostname", () -> FleetNames.requireHostname("hostname", null));
  }

  @Test
  void anUppercaseHostnameIsRefusedNotLowered() {
    assertThatThrownBy(() -> FleetNames.requireHostname("hostname", "Shop.Example.com"))
        .isInstanceOf(FleetInputException.class)
        .hasMessage("hostname: must be lowercase; hostnames are stored and compared as sent, never lowered:"
            + " \"Shop.Example.com\" (did you mean \"shop.example.com\"?)");
  }

  @Test
  void hostnameListsAreCheckedNameByName() {
    assertThat(FleetNames.requireHostnames("keep", List.of("b.example.com", "a.example.com")))
        .containsExactly("a.example.com", "b.example.com");
    assertRefused("keep", () -> FleetNames.requireHostnames("keep", null));
    assertRefused("keep", () -> FleetNames.requireHostnames("keep", Arrays.asList("a.example.com", null)));
    assertRefused("keep", () -> FleetNames.requireHostnames("keep", List.of("A.example.com")));
  }

  @Test
  void hostnameClaimFieldsAreValidated() {
    assertRefused("hostname", () -> new HostnameClaim("*.example.com", "acme", "uid-acme", "eu-1", NOW));
    assertRefused("tenant", () -> new HostnameClaim("app.example.com", "Acme", "uid-acme", "eu-1", NOW));
    assertRefused("cluster", () -> new HostnameClaim("app.example.com", "acme", "uid-acme", "eu_1", NOW));
    assertRefused("claimedAt", () -> new HostnameClaim("app.example.com", "acme", "uid-acme", "eu-1", null));
    assertThat(new HostnameClaim("app.example.com", "acme", "uid-acme", "eu-1", NOW).claimedAt())
        .isEqualTo(Instant.parse("2026-01-02T03:04:05.123456Z"));
  }

  @Test
  void tenantUidsAreValidatedAndMayBeAbsentOnlyInRecordsWrittenBeforeThem() {
    assertRefused("tenantUid", () -> new HostnameClaim("app.example.com", "acme", "", "eu-1", NOW));
    assertRefused("tenantUid", () -> new HostnameClaim("app.example.com", "acme", "has space", "eu-1", NOW));
    assertRefused("tenantUid", () -> new Allocation("r", "Acme", "a@b.io", "acme", "x".repeat(129), "eu-1", "ns", NOW, null));
    assertThat(new HostnameClaim("app.example.com", "acme", null, "eu-1", NOW).tenantUid()).isNull();
    assertThat(new Allocation("r", "Acme", "a@b.io", "acme", null, "eu-1", "ns", NOW, null).tenantUid()).isNull();
  }

  @Test
  void tenantRefNamesTheFieldItRefuses() {
    assertRefused("cluster", () -> new TenantRef("EU", "acme", "uid-1"));
    assertRefused("tenant", () -> new TenantRef("eu-1", "1acme", "uid-1"));
    assertRefused("tenantUid", () -> new TenantRef("eu-1", "acme", null));
    assertRefused("tenantUid", () -> new TenantRef("eu-1", "acme", ""));
  }

  @Test
  void aRecordIsTheTenantsByClusterAndUidOrByClusterAndNameWhenItHasNoUid() {
    TenantRef acmeEast = new TenantRef("east", "acme", "uid-x");
    assertThat(acmeEast.owns("east", "acme", "uid-x")).isTrue();
    assertThat(acmeEast.owns("east", "acme", null)).as("written before UIDs: adopted").isTrue();
    assertThat(acmeEast.owns("west", "acme", "uid-x")).as("another cluster").isFalse();
    assertThat(acmeEast.owns("west", "acme", null)).as("another cluster, before UIDs").isFalse();
    assertThat(acmeEast.owns("east", "acme", "uid-y")).as("the name created again").isFalse();
    assertThat(acmeEast.owns("east", "globex", "uid-x")).isFalse();
    assertThat(new HostnameClaim("app.example.com", "acme", "uid-y", "west", NOW).heldBy(acmeEast)).isFalse();
  }

  @Test
  void datastoreNamespaceIsValidated() {
    assertRefused("datastoreNamespace", () -> FleetNames.requireDatastoreNamespace("has/slash"));
    assertRefused("datastoreNamespace", () -> FleetNames.requireDatastoreNamespace("__reserved__"));
    assertThat(FleetNames.requireDatastoreNamespace("")).isEmpty();
  }
}
