package io.tenantry.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A buffer of Ready spare tenants (New tenants built from {@code spec.template}) that the
 * allocation API binds to new customers. Cluster-scoped, like {@link Tenant}.
 */
@Group(Tenant.GROUP)
@Version(Tenant.VERSION)
@ShortNames("sp")
// kubectl prints these in the order declared here (fabric8's generator sorts them by JSON path;
// api/src/build/PrinterColumnOrder.java puts them back).
@AdditionalPrinterColumn(name = "Buffer", jsonPath = ".spec.buffer", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.ready", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Provisioning", jsonPath = ".status.provisioning", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Allocated", jsonPath = ".status.allocated", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(value = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$') && size(self.metadata.name) <= 30",
    message = "metadata.name must be a DNS label of at most 30 characters (spare names are derived from it)")
@ValidationRule(value = "has(self.spec)", message = "spec is required")
public class SparePool extends CustomResource<SparePoolSpec, SparePoolStatus> {
}
