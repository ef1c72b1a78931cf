package io.tenantry.controller.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls the allocation API as a signup service would. */
public final class AllocationCalls {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI uri;
  private final String token;

  public AllocationCalls(int port, String token) {
    this.uri = URI.create("http://localhost:" + port + "/v1/allocations");
    this.token = token;
  }

  /** An answer: status, Retry-After (or null) and the JSON body. */
  public record Answer(int status, String retryAfter, JsonNode body) {
    /** The body but {@code serving}: what every answer to one request id repeats (serving turns true as the tenant comes up). */
    public JsonNode allocation() {
      JsonNode copy = body.deepCopy();
      if (copy instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
        object.remove("serving");
      }
      return copy;
    }

    public String tenant() {
      return body.path("tenant").asText(null);
    }
  }

  public Answer allocate(String requestId, String organization, String email, String pool) {
    return allocate(requestId, organization, email, pool, null);
  }

  /** A signup asking for {@code subdomain}; a null pool or subdomain is left out of the body. */
  public Answer allocate(String requestId, String organization, String email, String pool, String subdomain) {
    var node = JSON.createObjectNode().put("requestId", requestId).put("organization", organization).put("email", email);
    if (pool != null) {
      node.put("pool", pool);
    }
    if (subdomain != null) {
      node.put("subdomain", subdomain);
    }
    return post(node.toString(), "Bearer " + token);
  }

  public Answer post(String body, String authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return send(request.build());
  }

  /**
   * Sends once more when the connection closed before any answer: a kept-alive connection the API
   * closed as idle, which docs/allocation-api.md tells clients to retry (a signup is idempotent).
   */
  public Answer send(HttpRequest request) {
    try {
      HttpResponse<String> response;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException closed) {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
      }
      return new Answer(response.statusCode(), response.headers().firstValue("Retry-After").orElse(null),
          JSON.readTree(response.body()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public URI uri() {
    return uri;
  }
}
