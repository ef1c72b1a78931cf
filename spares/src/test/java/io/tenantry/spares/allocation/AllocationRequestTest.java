package io.tenantry.spares.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tenantry.spares.fleet.FleetInputException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AllocationRequestTest {

  private static AllocationRequest parse(String json) {
    return AllocationRequest.parse(json.getBytes(StandardCharsets.UTF_8), "default");
  }

  private static void assertRefused(String json, String field, String message) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessageContaining(message);
  }

  @Test
  void aCompleteRequestIsReadAndThePoolDefaults() {
    AllocationRequest request = parse("{\"requestId\":\"signup-1\",\"organization\":\"Acme Corp\",\"email\":\"ops@acme.example\"}");

    assertThat(request).isEqualTo(new AllocationRequest("signup-1", "Acme Corp", "ops@acme.example", "default", null));
    assertThat(parse("{\"requestId\":\"s\",\"organization\":\"A\",\"email\":\"a@b.example\",\"pool\":\"eu\"}").pool()).isEqualTo("eu");
  }

  @Test
  void everyRefusalNamesItsField() {
    assertRefused("{\"requestId\":", "body", "malformed JSON");
    assertRefused("", "body", "must be a JSON object");
    assertRefused("\"text\"", "body", "must be a JSON object");
    assertRefused("{\"organization\":\"A\",\"email\":\"a@b.example\"}", "requestId", "is required");
    assertRefused("{\"requestId\":null,\"organization\":\"A\",\"email\":\"a@b.example\"}", "requestId", "is required");
    assertRefused("{\"requestId\":\"s\",\"email\":\"a@b.example\"}", "organization", "is required");
    assertRefused("{\"requestId\":\"s\",\"organization\":\"A\"}", "email", "is required");
    assertRefused("{\"requestId\":[1],\"organization\":\"A\",\"email\":\"a@b.example\"}", "requestId", "must be a string, not array");
    assertRefused("{\"requestId\":\"has space\",\"organization\":\"A\",\"email\":\"a@b.example\"}", "requestId", "printable");
    assertRefused("{\"requestId\":\"s\",\"organization\":\"A\",\"email\":\"nobody\"}", "email", "");
    assertRefused("{\"requestId\":\"s\",\"organization\":\"A\",\"email\":\"a@b.example\",\"pool\":\"Not_A_Label\"}", "pool", "DNS label");
    assertRefused("{\"requestId\":\"s\",\"organization\":\"A\",\"email\":\"a@b.example\",\"tenant\":\"mine\"}", "tenant",
        "expected requestId, organization, email and optionally pool and subdomain");
  }

  @Test
  void aSubdomainIsOptionalAndReadWhenGiven() {
    String base = "{\"requestId\":\"s\",\"organization\":\"A\",\"email\":\"a@b.example\"";

    assertThat(parse(base + ",\"subdomain\":\"acme-shop\"}").subdomain()).isEqualTo("acme-shop");
    assertThat(parse(base + "}").subdomain()).isNull();
    assertThat(parse(base + ",\"subdomain\":null}").subdomain()).as("null is none").isNull();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"\"\"", "\"Acme\"", "\"acme.shop\"", "\"acme_shop\"", "\"-acme\"", "\"acme-\"", "\"1acme\"",
      "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "42", "[\"acme\"]"})
  void aSubdomainThatIsNotADnsLabelIsRefusedOnTheSubdomain(String subdomain) {
    assertThatThrownBy(() -> parse("{\"requestId\":\"s\",\"organization\":\"A\",\"email\":\"a@b.example\",\"subdomain\":"
        + subdomain + "}"))
        .isInstanceOfSatisfying(FleetInputException.class, e -> assertThat(e.field()).isEqualTo("subdomain"));
  }
}
