package io.tenantry.deploy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tenantry.spares.allocation.AllocationRequest;
import io.tenantry.spares.fleet.FleetInputException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * {@code allocate --organization ORG --email EMAIL [--request-id ID] [--pool POOL] [--subdomain NAME]
 * [--url URL] --token-file FILE [--wait DURATION]}: signs a customer up through the operator's
 * allocation API, as the signup service does, and prints where the tenant is reached. The request id (generated when not given) is printed first, so that
 * an interrupted call can be repeated with it and get the same tenant.
 */
record AllocateCommand(AllocationRequest request, URI uri, Path tokenFile, Duration waitFor) implements Command {

  static final String NAME = "allocate";
  static final String DEFAULT_URL = "http://localhost:8080";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The flag behind each field the API or the request names. */
  private static final Map<String, String> FLAGS = Map.of("requestId", "--request-id", "organization", "--organization",
      "email", "--email", "pool", "--pool", "subdomain", "--subdomain");

  static AllocateCommand parse(Args args) {
    args.allowOnly(NAME, "--organization", "--email", "--request-id", "--pool", "--subdomain", "--url", "--token-file",
        "--wait");
    args.positionals(NAME, 1);
    for (String flag : new String[] {"--organization", "--email", "--token-file"}) {
      if (args.one(flag) == null) {
        throw new UsageException("allocate: " + flag + " is required");
      }
    }
    String tokenFile = args.one("--token-file");
    String requestId = args.one("--request-id");
    AllocationRequest request;
    try {
      request = new AllocationRequest(requestId == null ? "tenantctl-" + UUID.randomUUID() : requestId,
          args.one("--organization"), args.one("--email"), args.one("--pool") == null ? "default" : args.one("--pool"),
          args.one("--subdomain"));
    } catch (FleetInputException e) {
      throw new UsageException(FLAGS.getOrDefault(e.field(), e.field()) + e.getMessage().substring(e.field().length()));
    }
    String url = args.one("--url") == null ? DEFAULT_URL : args.one("--url");
    URI uri;
    try {
      uri = URI.create(url.replaceAll("/+$", "") + "/v1/allocations");
    } catch (IllegalArgumentException e) {
      throw new UsageException("--url: not a URL: \"" + url + "\"");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new UsageException("--url: must be http:// or https://, not \"" + url + "\"");
    }
    return new AllocateCommand(request, uri, Path.of(tokenFile), args.duration("--wait", Duration.ZERO));
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) throws InterruptedException {
    String token;
    try {
      token = Files.readString(tokenFile).strip();
    } catch (IOException e) {
      throw new UsageException("--token-file: cannot read " + tokenFile);
    }
    terminal.out().println("request id: " + request.requestId());
    var json = JSON.createObjectNode().put("requestId", request.requestId()).put("organization", request.organization())
        .put("email", request.email()).put("pool", request.pool());
    if (request.subdomain() != null) {
      json.put("subdomain", request.subdomain());
    }
    String body = json.toString();
    HttpRequest post = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    Instant deadline = Instant.now().plus(waitFor);
    while (true) {
      HttpResponse<String> response;
      try {
        response = http.send(post, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        terminal.err().println("tenantctl: cannot reach " + uri + ": " + e.getMessage()
            + " (repeat with --request-id " + request.requestId() + ")");
        return 1;
      }
      JsonNode answer = parse(response.body());
      if (response.statusCode() == 200) {
        Table table = new Table("TENANT", "NAMESPACE", "CLUSTER", "ORGANIZATION", "ALLOCATED", "URL");
        table.row(answer.path("tenant").asText(), answer.path("namespace").asText(), answer.path("cluster").asText(),
            answer.path("organization").asText(), answer.path("allocatedAt").asText(), answer.path("url").asText(null));
        table.lines().forEach(terminal.out()::println);
        return 0;
      }
      String error = answer.path("error").asText(response.body());
      if (response.statusCode() == 503) {
        long seconds = response.headers().firstValue("Retry-After").map(Long::parseLong).orElse(5L);
        if (Instant.now().plusSeconds(seconds).isAfter(deadline)) {
          terminal.err().println("tenantctl: " + error + (waitFor.isZero() ? " (--wait 5m waits for a spare)" : ""));
          return 1;
        }
        terminal.err().println("waiting " + seconds + "s: " + error);
        Thread.sleep(seconds * 1000);
        continue;
      }
      String field = answer.path("field").asText(null);
      // The API names its field; people typed a flag.
      String message = field == null ? error
          : FLAGS.getOrDefault(field, field) + ": " + error.replaceFirst("^" + java.util.regex.Pattern.quote(field) + ": ", "");
      terminal.err().println("tenantctl: " + response.statusCode() + ": " + message);
      return response.statusCode() >= 500 ? 1 : 2;
    }
  }

  private static JsonNode parse(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return JSON.createObjectNode().put("error", body);
    }
  }
}
