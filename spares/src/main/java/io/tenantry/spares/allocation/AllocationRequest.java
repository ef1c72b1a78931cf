package io.tenantry.spares.allocation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.FleetNames;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

/**
 * One signup: the caller's idempotency key, the customer, the pool to take a spare from, and
 * optionally the subdomain the tenant is to be reached at.
 *
 * @param requestId the caller's idempotency key: the same id always gets the same tenant
 * @param organization the customer's organization name
 * @param email the customer's contact email
 * @param pool the SparePool to allocate from
 * @param subdomain the DNS label to reach the tenant at under the routing base domain; null for the
 *     tenant's name. The Tenant CRD's rule: lowercase letters, digits and '-', starting with a letter
 */
public record AllocationRequest(String requestId, String organization, String email, String pool, String subdomain) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> FIELDS = Set.of("requestId", "organization", "email", "pool", "subdomain");

  /** Validates every field, naming the one refused ({@link FleetInputException}). */
  public AllocationRequest {
    FleetNames.requireRequestId(requestId);
    FleetNames.requireOrganization(organization);
    FleetNames.requireEmail(email);
    FleetNames.requireDnsLabel("pool", pool);
    if (subdomain != null) {
      FleetNames.requireDnsLabel("subdomain", subdomain);
    }
  }

  /**
   * Reads {@code {"requestId": ..., "organization": ..., "email": ..., "pool": ..., "subdomain": ...}};
   * {@code pool} and {@code subdomain} are optional (a {@code null} subdomain is none). Malformed
   * JSON, an unknown or missing field, or a field of the wrong type is refused with a
   * {@link FleetInputException} naming it ({@code body} for the document itself).
   */
  public static AllocationRequest parse(byte[] body, String defaultPool) {
    JsonNode document;
    try {
      document = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new FleetInputException("body", "malformed JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw new FleetInputException("body", "unreadable: " + e.getMessage());
    }
    if (!(document instanceof ObjectNode object)) {
      throw new FleetInputException("body", "must be a JSON object with requestId, organization and email");
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new FleetInputException(name, "unknown field; expected requestId, organization, email and optionally pool and subdomain");
      }
    }
    String pool = object.has("pool") ? text(object, "pool") : defaultPool;
    String subdomain = object.hasNonNull("subdomain") ? text(object, "subdomain") : null;
    return new AllocationRequest(text(object, "requestId"), text(object, "organization"), text(object, "email"), pool,
        subdomain);
  }

  private static String text(ObjectNode object, String field) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      throw new FleetInputException(field, "is required");
    }
    if (!value.isTextual()) {
      throw new FleetInputException(field, "must be a string, not " + value.getNodeType().toString().toLowerCase(Locale.ROOT));
    }
    return value.textValue();
  }
}
