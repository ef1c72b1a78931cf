/**
 * The {@code tenantry.io/v1alpha1} API: {@link io.tenantry.api.v1alpha1.Tenant} and
 * {@link io.tenantry.api.v1alpha1.SparePool}.
 *
 * <p>The CRDs are generated from these classes at build time (fabric8 crd-generator), so the
 * annotations here are the API's validation: OpenAPI bounds, CEL rules (including the lifecycle
 * transition rules on {@code spec.state}) and printer columns. Field descriptions come from
 * {@code @JsonPropertyDescription} and are what {@code kubectl explain} shows.
 */
package io.tenantry.api.v1alpha1;
