package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The desired tenant: a {@link TenantTemplate} plus the customer it belongs to and its lifecycle
 * state. The CEL rules on {@link #state} are the lifecycle's transition rules: the API server
 * refuses a forbidden transition with the rule's message.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.state in ['New', 'Purged'] || (has(self.organization) && has(self.email))",
    message = "spec.organization and spec.email are required once a tenant has left New (spares are the only tenants without a customer)")
@ValidationRule(value = "!has(oldSelf.databases) || !has(self.databases) || oldSelf.databases.all(o, self.databases.all(d, d.name != o.name || d.engine == o.engine))",
    message = "spec.databases[].engine cannot change for an existing database: add a database under a new name instead")
// A data directory opens only in the major version that wrote it (PostgreSQL 17 refuses a 16 one):
// another major goes through a backup and a restore, asked for by majorUpgrade.
@ValidationRule(value = "!has(oldSelf.databases) || !has(self.databases) || oldSelf.databases.all(o, self.databases.all(d,"
    + " d.name != o.name || d.engine != o.engine || (has(d.majorUpgrade) && d.majorUpgrade)"
    + " || !o.version.matches('^[0-9]+') || !d.version.matches('^[0-9]+')"
    + " || o.version.find('^[0-9]+') == d.version.find('^[0-9]+')))",
    message = "spec.databases[].version cannot change major version for an existing database: its data directory opens only in"
        + " the major version that wrote it; set spec.databases[].majorUpgrade: true to upgrade through a backup and a restore")
@ValidationRule(value = "!has(oldSelf.databases) || !has(self.databases) || oldSelf.databases.all(o, self.databases.all(d,"
    + " d.name != o.name || d.engine != o.engine || (has(d.majorUpgrade) && d.majorUpgrade)"
    + " || !o.version.matches('^[0-9]+[.][0-9]+') || !d.version.matches('^[0-9]+[.][0-9]+')"
    + " || o.version.find('^[0-9]+') != d.version.find('^[0-9]+')"
    + " || int(d.version.find('^[0-9]+[.][0-9]+').find('[0-9]+$')) >= int(o.version.find('^[0-9]+[.][0-9]+').find('[0-9]+$'))))",
    message = "spec.databases[].version cannot go down for an existing database: a server older than the one that last wrote"
        + " the data is not guaranteed to read it")
@ValidationRule(value = "!has(oldSelf.databases) || !has(self.databases) || self.state == 'Frozen'"
    + " || self.databases.all(d, !has(d.restoreFrom) || !oldSelf.databases.exists(o, o.name == d.name)"
    + " || oldSelf.databases.exists(o, o.name == d.name && has(o.restoreFrom) && o.restoreFrom == d.restoreFrom))",
    message = "spec.databases[].restoreFrom can be set or changed only while the tenant is Frozen, or with a database's"
        + " creation: freeze the tenant first (its apps stop while the data is replaced)")
public class TenantSpec extends TenantTemplate {

  @Default("New")
  @JsonPropertyDescription("Desired lifecycle state: New (a spare, not yet bound), Active (serving its customer), Frozen (workloads scaled to zero), Archived (workloads removed, volumes and secrets kept) or Purged (everything deleted, terminal). Allowed: New→Active|Purged, Active→Frozen|Archived, Frozen→Active|Archived|Purged, Archived→Active|Purged.")
  @ValidationRule(value = "oldSelf != 'Purged' || self == 'Purged'",
      message = "spec.state: Purged is terminal, a purged tenant cannot change state")
  @ValidationRule(value = "self != 'Purged' || oldSelf in ['New', 'Frozen', 'Archived', 'Purged']",
      message = "spec.state: Purged is reachable only from New, Frozen or Archived; freeze or archive an Active tenant first")
  @ValidationRule(value = "self != 'New' || oldSelf == 'New'",
      message = "spec.state: a tenant cannot return to New once it has left it")
  @ValidationRule(value = "oldSelf != 'New' || self in ['New', 'Active', 'Purged']",
      message = "spec.state: a New tenant can only become Active or Purged")
  @ValidationRule(value = "oldSelf != 'Archived' || self in ['Archived', 'Active', 'Purged']",
      message = "spec.state: an Archived tenant can only become Active (restore) or Purged")
  private TenantState state = TenantState.New;

  @Size(max = 253)
  @JsonPropertyDescription("The customer organization this tenant serves; empty on an unallocated spare.")
  private String organization;

  @Size(max = 254)
  @Pattern("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$")
  @JsonPropertyDescription("Contact email of the customer; empty on an unallocated spare.")
  private String email;

  @Size(max = 63)
  @Pattern(Patterns.DNS_LABEL)
  @JsonPropertyDescription("The tenant's name under the operator's routing.baseDomain: it is reached at <subdomain>.<baseDomain>. Default: the tenant's name. Claimed across the fleet like spec.hostnames.")
  private String subdomain;

  @Size(max = 16)
  @ValidationRule(value = "self.all(h, self.exists_one(i, i == h))", message = "spec.hostnames: each hostname may be named once")
  // An all-digit last label is no top-level domain: such a name is an IPv4 address (10.0.0.1), which
  // the HOSTNAME pattern alone would let through to the edge as a host to route.
  @ValidationRule(value = "self.all(h, !h.matches('[.][0-9]+$'))",
      message = "spec.hostnames: an IP address is not a hostname; the last label must not be all digits")
  @JsonPropertyDescription("Custom domains routed to the tenant besides <subdomain>.<baseDomain>: lowercase DNS names of at least two labels, no wildcards, no IP addresses. Each is claimed across the fleet; one held by another tenant is not routed (condition Routed, reason HostnameConflict).")
  private List<@Size(max = 253) @Pattern(Patterns.HOSTNAME) String> hostnames = new ArrayList<>();

  public TenantState getState() {
    return state;
  }

  public void setState(TenantState state) {
    this.state = state;
  }

  public String getOrganization() {
    return organization;
  }

  public void setOrganization(String organization) {
    this.organization = organization;
  }

  public String getEmail() {
    return email;
  }

  public void setEmail(String email) {
    this.email = email;
  }

  public String getSubdomain() {
    return subdomain;
  }

  public void setSubdomain(String subdomain) {
    this.subdomain = subdomain;
  }

  public List<String> getHostnames() {
    return hostnames;
  }

  public void setHostnames(List<String> hostnames) {
    this.hostnames = hostnames;
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o) && o instanceof TenantSpec s && state == s.state
        && Objects.equals(organization, s.organization) && Objects.equals(email, s.email)
        && Objects.equals(subdomain, s.subdomain) && Objects.equals(hostnames, s.hostnames);
  }

  @Override
  public int hashCode() {
    return Objects.hash(super.hashCode(), state, organization, email, subdomain, hostnames);
  }
}
