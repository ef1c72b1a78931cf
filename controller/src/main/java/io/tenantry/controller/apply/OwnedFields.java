package io.tenantry.controller.apply;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether an object in the cache already has every field the operator sets, without
 * looking at fields it does not set (defaults the API server filled in, other controllers'
 * annotations, HPA-managed replicas). This is the check that keeps a converged sync free of
 * API calls, so it must never report a difference the API server would not keep: a desired
 * empty value matches an absent one (the server drops empty fields), lists match element by
 * element, and the values of resource lists compare as quantities ({@code 1000m} is {@code 1}).
 */
public final class OwnedFields {

  /** Fields whose values are maps of resource name to quantity. */
  private static final Set<String> QUANTITY_MAPS = Set.of("requests", "limits", "hard", "default", "defaultRequest",
      "max", "min", "maxLimitRequestRatio", "capacity");

  private OwnedFields() {
  }

  /** True when {@code actual} holds every field of {@code desired} with an equal value. */
  public static boolean covered(JsonNode desired, JsonNode actual) {
    return covered(desired, actual, "", false);
  }

  /**
   * @param field the name of the field holding {@code desired}
   * @param quantity whether {@code desired} is a value of a resource list
   */
  private static boolean covered(JsonNode desired, JsonNode actual, String field, boolean quantity) {
    if (isEmpty(desired)) {
      return absent(actual) || isEmpty(actual) || desired.equals(actual);
    }
    if (absent(actual)) {
      return false;
    }
    if (desired.isObject()) {
      if (!actual.isObject()) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> fields = desired.fields(); fields.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = fields.next();
        if (!covered(entry.getValue(), actual.get(entry.getKey()), entry.getKey(), QUANTITY_MAPS.contains(field))) {
          return false;
        }
      }
      return true;
    }
    if (desired.isArray()) {
      if (!actual.isArray() || actual.size() != desired.size()) {
        return false;
      }
      for (int i = 0; i < desired.size(); i++) {
        if (!covered(desired.get(i), actual.get(i), field, false)) {
          return false;
        }
      }
      return true;
    }
    if (desired.isNumber() && actual.isNumber()) {
      return desired.decimalValue().compareTo(actual.decimalValue()) == 0;
    }
    if (quantity && desired.isValueNode() && actual.isValueNode()) {
      return sameQuantity(desired.asText(), actual.asText());
    }
    return desired.equals(actual);
  }

  private static boolean sameQuantity(String desired, String actual) {
    if (desired.equals(actual)) {
      return true;
    }
    try {
      return new Quantity(desired).getNumericalAmount().compareTo(new Quantity(actual).getNumericalAmount()) == 0;
    } catch (IllegalArgumentException | ArithmeticException e) {
      return false;
    }
  }

  private static boolean absent(JsonNode node) {
    return node == null || node.isMissingNode() || node.isNull();
  }

  /** What the API server omits when empty (Go's omitempty): null, "", false, 0, {} and []. */
  private static boolean isEmpty(JsonNode node) {
    return node == null || node.isNull()
        || (node.isTextual() && node.asText().isEmpty())
        || (node.isBoolean() && !node.asBoolean())
        || (node.isNumber() && node.decimalValue().signum() == 0)
        || (node.isContainerNode() && node.isEmpty());
  }
}
