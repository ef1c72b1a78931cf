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
 * What a tenant runs: its plan, databases and apps. A {@link TenantSpec} is a template plus
 * identity and lifecycle state; a {@link SparePool} builds its spares from a template.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.apps) || self.apps.all(a, !has(a.databases) || a.databases.all(n, has(self.databases) && self.databases.exists(d, d.name == n)))",
    message = "spec.apps[].databases: every entry must name a database of spec.databases")
@ValidationRule(value = "!has(self.apps) || self.apps.all(a, !has(a.routes) || a.routes.all(r, self.apps.filter(b, has(b.routes) && b.routes.exists(q, q.pathPrefix == r.pathPrefix)).size() == 1))",
    message = "spec.apps[].routes: a path prefix may be routed to one app only")
public class TenantTemplate {

  @Default("standard")
  @Size(max = 63)
  @Pattern(Patterns.DNS_LABEL)
  @JsonPropertyDescription("Plan of the tenant; selects its ResourceQuota, LimitRange and sizes from the operator's configuration.")
  private String plan = "standard";

  @Size(max = 8)
  @ValidationRule(value = "self.all(d, self.exists_one(e, e.name == d.name))",
      message = "database names must be unique within a tenant")
  @JsonPropertyDescription("The tenant's databases, each a StatefulSet with its own volume and generated credentials.")
  private List<DatabaseSpec> databases = new ArrayList<>();

  @Size(max = 16)
  @ValidationRule(value = "self.all(a, self.exists_one(b, b.name == a.name))",
      message = "app names must be unique within a tenant")
  @JsonPropertyDescription("The tenant's applications, each a Deployment with a Service.")
  private List<AppSpec> apps = new ArrayList<>();

  public String getPlan() {
    return plan;
  }

  public void setPlan(String plan) {
    this.plan = plan;
  }

  public List<DatabaseSpec> getDatabases() {
    return databases;
  }

  public void setDatabases(List<DatabaseSpec> databases) {
    this.databases = databases;
  }

  public List<AppSpec> getApps() {
    return apps;
  }

  public void setApps(List<AppSpec> apps) {
    this.apps = apps;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TenantTemplate t && getClass() == o.getClass() && Objects.equals(plan, t.plan)
        && Objects.equals(databases, t.databases) && Objects.equals(apps, t.apps);
  }

  @Override
  public int hashCode() {
    return Objects.hash(plan, databases, apps);
  }
}
