package io.tenantry.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One customer's isolated copy of the application. Cluster-scoped (it does not implement
 * {@code Namespaced}): the operator turns it into a
 * namespace ({@code tenant-<name>}) holding the customer's databases, apps, secrets and guardrails.
 *
 * <p>The name becomes part of the namespace name and of labels, hence the root rules below.
 */
@Group(Tenant.GROUP)
@Version(Tenant.VERSION)
@ShortNames("tn")
// kubectl prints these in the order declared here (fabric8's generator sorts them by JSON path;
// api/src/build/PrinterColumnOrder.java puts them back). The default view ends with AGE;
// -o wide adds the customer, the namespace, the URL and the backups after it, as it does for pods.
@AdditionalPrinterColumn(name = "State", jsonPath = ".spec.state")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(name = "Plan", jsonPath = ".spec.plan")
@AdditionalPrinterColumn(name = "Versions", jsonPath = ".status.versions")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(name = "Organization", jsonPath = ".spec.organization", priority = 1)
@AdditionalPrinterColumn(name = "Namespace", jsonPath = ".status.namespace", priority = 1)
@AdditionalPrinterColumn(name = "Replicas", jsonPath = ".status.replicas", priority = 1)
@AdditionalPrinterColumn(name = "URL", jsonPath = ".status.urls[0]", priority = 1)
// How long ago the first database's newest backup was proven (kubectl shows a date column as an age).
@AdditionalPrinterColumn(name = "BackedUp", jsonPath = ".status.conditions[?(@.type==\"BackedUp\")].status", priority = 1)
@AdditionalPrinterColumn(name = "LastBackup", jsonPath = ".status.databases[0].backup.last.finished",
    type = AdditionalPrinterColumn.Type.DATE, priority = 1)
@ValidationRule(value = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message = "metadata.name must be a DNS label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit")
@ValidationRule(value = "size(self.metadata.name) <= " + Tenant.MAX_NAME_LENGTH,
    message = "metadata.name must be at most " + Tenant.MAX_NAME_LENGTH + " characters (it is part of the tenant's namespace name)")
@ValidationRule(value = "has(self.spec)", message = "spec is required")
public class Tenant extends CustomResource<TenantSpec, TenantStatus> {

  public static final String GROUP = "tenantry.io";
  public static final String VERSION = "v1alpha1";
  /** Leaves room for a namespace prefix of up to 15 characters within the 63 of a DNS label. */
  public static final int MAX_NAME_LENGTH = 48;
}
