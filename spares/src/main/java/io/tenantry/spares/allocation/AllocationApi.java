package io.tenantry.spares.allocation;

import static net.logstash.logback.argument.StructuredArguments.kv;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.datastore.DatastoreException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainRefused;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainTaken;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.FleetNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/allocations}: the signup API. The request carries {@code Authorization: Bearer
 * <token>} and a JSON body of at most {@code maxBodyBytes}:
 * <pre>{"requestId": "signup-123", "organization": "Acme Corp", "email": "ops@acme.example", "pool": "default",
 *  "subdomain": "acme"}</pre>
 * ({@code pool} and {@code subdomain} optional). {@code GET /v1/allocations/<requestId>} answers what
 * the request id received, as its POST did, or 404. Both take {@code ?wait=5s} (at most 30 s): the
 * answer waits up to that long for the tenant to serve at its URL. A waiting answer holds no thread
 * ({@link Allocations#whenServing}) and no place among the requests being handled; at most
 * {@link Limits#waits} answers wait at once, and beyond that an answer comes at once, {@code serving}
 * as it is then, and the caller asks {@code status} again. Requests are handled on at most
 * {@link Limits#threads} threads at once, up to {@link Limits#queue} more wait for one, and more are
 * refused with 503 {@code Retry-After: 1} ({@code tenantry_http_rejected_total{listener="api",reason="busy"}}):
 * the API limits itself, and is served outside its listener's QoS. Answers, always JSON:
 * <ul>
 *   <li>200 {@code {"requestId", "tenant", "namespace", "cluster", "organization", "email", "allocatedAt", "url",
 *       "serving", "status"}}, the same for every retry of the request id, whatever subdomain the retry
 *       names, but for {@code serving}: whether the tenant serves at {@code url} yet
 *       ({@link io.tenantry.api.Spares#serving}, then the edge's answer); {@code status} is the GET path to ask
 *       again. {@code url} is absent while routing is off;</li>
 *   <li>400 {@code {"error", "field"}}: malformed JSON, a missing, unknown or invalid field, an unknown pool,
 *       a subdomain while routing is off, a reserved subdomain;</li>
 *   <li>409 {@code {"error", "field": "subdomain"}}: another tenant holds the subdomain; nothing was bound;</li>
 *   <li>401 missing or wrong token; 404 (GET) no allocation for the request id; 405 another method;
 *       413 body too large; 415 not JSON; 400 on {@code wait} when it is not a duration of at most 30 s;</li>
 *   <li>503 with {@code Retry-After}: the API is busy (see above), no Ready spare (the pool grows), or the fleet records or a
 *       cluster cannot be reached; in the operator, also any request with the token to a replica
 *       that does not lead (the operator's listener checks the token first: only the leader serves
 *       allocations).</li>
 * </ul>
 * The token and the body are never logged.
 */
public final class AllocationApi extends Handler.Abstract {

  public static final String PATH = "/v1/allocations";
  private static final Logger LOG = LoggerFactory.getLogger(AllocationApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int OUTAGE_RETRY_SECONDS = 5;
  /** The longest {@code wait} a request may ask for: well within any client's timeout. */
  static final Duration MAX_WAIT = Duration.ofSeconds(30);
  private static final Pattern WAIT = Pattern.compile("(\\d{1,6})(ms|s)");

  private final Allocations allocator;
  private final byte[] token;
  private final int maxBodyBytes;
  private final String defaultPool;
  private final Semaphore waiting;
  private final Admission admission;
  private final Counter busy;

  /**
   * The API's limits.
   *
   * @param threads requests handled at once, each on a thread: reading the body, allocating, looking a request id up
   * @param queue requests that may wait for one of those, holding no thread; more are refused with 503
   * @param waits answers that may wait for their tenant to serve at once, holding no thread
   */
  public record Limits(int threads, int queue, int waits) {
    public Limits {
      if (threads < 1 || queue < 0 || waits < 1) {
        throw new IllegalArgumentException("allocation API limits: threads and waits must be at least 1, queue not negative");
      }
    }
  }

  /**
   * @param allocator what serves a request once it is accepted: in the operator, the {@link Allocator}
   * @param token the bearer token callers must present
   * @param maxBodyBytes the largest body read; a larger one is refused with 413
   * @param defaultPool the pool of requests that name none
   * @param limits what the API handles at once, and what waits
   * @param registry where refusals are counted
   */
  public AllocationApi(Allocations allocator, String token, int maxBodyBytes, String defaultPool, Limits limits,
      MeterRegistry registry) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("allocation token must not be empty");
    }
    this.allocator = allocator;
    this.token = token.strip().getBytes(StandardCharsets.UTF_8);
    this.maxBodyBytes = maxBodyBytes;
    this.defaultPool = defaultPool;
    this.waiting = new Semaphore(limits.waits());
    this.admission = new Admission(limits.threads(), limits.queue());
    this.busy = Counter.builder("tenantry.http.rejected").tag("listener", "api").tag("reason", "busy").register(registry);
  }

  /** One request being answered: it is answered exactly once, by {@link #respond}. */
  private record Exchange(Request request, Response response, Callback callback) {

    String header(String name) {
      return request.getHeaders().get(name);
    }

    void setHeader(String name, String value) {
      response.getHeaders().put(name, value);
    }
  }

  /**
   * Within the {@link Admission}: the body is read, and the allocator called, on a thread of the
   * listener; a wait for serving then holds none.
   */
  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Exchange exchange = new Exchange(request, response, callback);
    if (!admission.submit(() -> handleAdmitted(exchange), request.getComponents().getExecutor())) {
      busy.increment();
      exchange.setHeader("Retry-After", "1");
      exchange.setHeader("Connection", "close");
      error(exchange, 503, null, "the allocation API is busy; retry");
    }
    return true;
  }

  private void handleAdmitted(Exchange exchange) {
    try {
      handle(exchange);
    } catch (IOException | RuntimeException e) { // the body could not be read, or a fault: Jetty answers (500) or closes
      exchange.callback().failed(e);
    }
  }

  private void handle(Exchange exchange) throws IOException {
    // The URI's own path: served under a path mapping with no context, Request.getPathInContext fails (Jetty 12.1).
    String path = exchange.request().getHttpURI().getCanonicalPath();
    boolean status = path.startsWith(PATH + "/") && path.length() > PATH.length() + 1;
    if (!PATH.equals(path) && !status) {
      error(exchange, 404, "path", "no such resource; POST " + PATH + " or GET " + PATH + "/<requestId>");
      return;
    }
    String method = status ? "GET" : "POST";
    if (!method.equals(exchange.request().getMethod())) {
      exchange.setHeader("Allow", method);
      error(exchange, 405, "method", exchange.request().getMethod() + " is not allowed; use " + method);
      return;
    }
    if (!authorized(exchange)) {
      return;
    }
    Duration wait;
    try {
      wait = waitParameter(exchange.request().getHttpURI().getQuery());
    } catch (FleetInputException e) {
      error(exchange, 400, e.field(), e.getMessage());
      return;
    }
    if (status) {
      status(exchange, path.substring(PATH.length() + 1), wait);
    } else {
      allocate(exchange, wait);
    }
  }

  /** POST: the body read (within its limit) and served. */
  private void allocate(Exchange exchange, Duration wait) throws IOException {
    String type = exchange.header("Content-Type");
    if (type != null && !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      error(exchange, 415, "Content-Type", "must be application/json, not " + type);
      return;
    }
    byte[] body = readBody(exchange);
    if (body == null) {
      error(exchange, 413, "body", "larger than the limit of " + maxBodyBytes + " bytes");
      return;
    }
    AllocationRequest request;
    try {
      request = AllocationRequest.parse(body, defaultPool);
    } catch (FleetInputException e) {
      error(exchange, 400, e.field(), e.getMessage());
      return;
    }
    answer(exchange, request, wait);
  }

  /** GET: the allocation a request id received, as its POST answered it, with whether it serves yet. */
  private void status(Exchange exchange, String rawId, Duration wait) {
    String requestId = URLDecoder.decode(rawId, StandardCharsets.UTF_8);
    Optional<Allocated> allocated;
    try {
      FleetNames.requireRequestId(requestId);
      allocated = allocator.lookup(requestId);
    } catch (FleetInputException e) {
      error(exchange, 400, "requestId", e.getMessage());
      return;
    } catch (DatastoreException | KubernetesClientException e) {
      LOG.error("allocation status unavailable {} {}", kv("requestId", requestId), kv("error", e.getMessage()));
      exchange.setHeader("Retry-After", Integer.toString(OUTAGE_RETRY_SECONDS));
      error(exchange, 503, null, "the fleet records or a cluster could not be reached; retry");
      return;
    }
    if (allocated.isEmpty()) {
      error(exchange, 404, "requestId", "no allocation for request id " + requestId);
      return;
    }
    respondWhenServing(exchange, allocated.get(), wait);
  }

  /**
   * The {@code wait} query parameter: how long an answer may wait for the tenant to serve, as
   * {@code 500ms} or {@code 5s}, at most {@link #MAX_WAIT}; none: zero.
   */
  static Duration waitParameter(String rawQuery) {
    if (rawQuery == null) {
      return Duration.ZERO;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.startsWith("wait=")) {
        String value = URLDecoder.decode(pair.substring(5), StandardCharsets.UTF_8);
        Matcher m = WAIT.matcher(value);
        Duration wait = m.matches() ? ("ms".equals(m.group(2)) ? Duration.ofMillis(Long.parseLong(m.group(1)))
            : Duration.ofSeconds(Long.parseLong(m.group(1)))) : null;
        if (wait == null || wait.compareTo(MAX_WAIT) > 0) {
          throw new FleetInputException("wait", "must be a duration such as 500ms or 5s, at most " + MAX_WAIT.toSeconds()
              + "s: " + value);
        }
        return wait;
      }
    }
    return Duration.ZERO;
  }

  private void answer(Exchange exchange, AllocationRequest request, Duration wait) {
    AllocationOutcome outcome;
    try {
      outcome = allocator.allocate(request);
    } catch (DatastoreException e) {
      LOG.error("fleet records unavailable {} {}", kv("requestId", request.requestId()), kv("error", e.getMessage()));
      exchange.setHeader("Retry-After", Integer.toString(OUTAGE_RETRY_SECONDS));
      error(exchange, 503, null, "the fleet records are unavailable; retry");
      return;
    } catch (KubernetesClientException e) {
      LOG.error("cluster unavailable during allocation {} {}", kv("requestId", request.requestId()), kv("error", e.getMessage()));
      exchange.setHeader("Retry-After", Integer.toString(OUTAGE_RETRY_SECONDS));
      error(exchange, 503, null, "a cluster could not be reached; retry");
      return;
    } catch (RuntimeException e) {
      LOG.error("allocation failed {} {}", kv("requestId", request.requestId()), kv("error", e.toString()));
      error(exchange, 500, null, "internal error; the request can be retried with the same requestId");
      return;
    }
    if (outcome instanceof Allocated allocated) {
      respondWhenServing(exchange, allocated, wait);
    } else if (outcome instanceof NoSpare none) {
      exchange.setHeader("Retry-After", Long.toString(Math.max(1, none.retryAfter().toSeconds())));
      error(exchange, 503, null, none.message());
    } else if (outcome instanceof UnknownPool unknown) {
      error(exchange, 400, "pool", "no SparePool named " + unknown.pool() + " in the fleet");
    } else if (outcome instanceof SubdomainTaken taken) {
      error(exchange, 409, "subdomain", "subdomain " + taken.subdomain() + " is taken: " + taken.hostname()
          + " belongs to another tenant; choose another subdomain");
    } else if (outcome instanceof SubdomainRefused refused) {
      error(exchange, 400, "subdomain", refused.message());
    }
  }

  private boolean authorized(Exchange exchange) {
    String header = exchange.header("Authorization");
    exchange.setHeader("WWW-Authenticate", "Bearer");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      error(exchange, 401, "Authorization", "missing bearer token: send Authorization: Bearer <token>");
      return false;
    }
    byte[] presented = header.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(presented, token)) { // Constant time: no hint from timing.
      error(exchange, 401, "Authorization", "invalid bearer token");
      return false;
    }
    exchange.response().getHeaders().remove("WWW-Authenticate");
    return true;
  }

  /** The body, or null when it exceeds the limit (read no further than one byte past it). */
  private byte[] readBody(Exchange exchange) throws IOException {
    String length = exchange.header("Content-Length");
    if (length != null) {
      try {
        if (Long.parseLong(length.strip()) > maxBodyBytes) {
          return null;
        }
      } catch (NumberFormatException e) {
        return null;
      }
    }
    try (InputStream in = Content.Source.asInputStream(exchange.request())) {
      byte[] body = in.readNBytes(maxBodyBytes + 1);
      return body.length > maxBodyBytes ? null : body;
    }
  }

  /**
   * Answers 200 with {@code allocated}, once it serves or {@code wait} ends while a wait is free (from
   * the thread that learns it), else at once with {@code serving} as it is now.
   */
  private void respondWhenServing(Exchange exchange, Allocated allocated, Duration wait) {
    if (wait.isZero() || !waiting.tryAcquire()) {
      respond(exchange, 200, body(allocated, allocator.whenServing(allocated.allocation(), Duration.ZERO).join()));
      return;
    }
    allocator.whenServing(allocated.allocation(), wait).whenComplete((serving, failure) -> {
      waiting.release();
      if (failure != null) {
        LOG.warn("serving wait failed {} {}", kv("requestId", allocated.allocation().requestId()), kv("error", failure.toString()));
      }
      respond(exchange, 200, body(allocated, Boolean.TRUE.equals(serving)));
    });
  }

  private static ObjectNode body(Allocated allocated, boolean serving) {
    Allocation allocation = allocated.allocation();
    String url = allocated.url();
    ObjectNode node = JSON.createObjectNode();
    node.put("requestId", allocation.requestId());
    node.put("tenant", allocation.tenant());
    node.put("namespace", allocation.namespace());
    node.put("cluster", allocation.cluster());
    node.put("organization", allocation.organization());
    node.put("email", allocation.email());
    node.put("allocatedAt", allocation.allocatedAt().toString());
    if (url != null) {
      node.put("url", url);
    }
    node.put("serving", serving);
    node.put("status", PATH + "/" + URLEncoder.encode(allocation.requestId(), StandardCharsets.UTF_8));
    return node;
  }

  private static void error(Exchange exchange, int code, String field, String message) {
    ObjectNode node = JSON.createObjectNode();
    node.put("error", message);
    if (field != null) {
      node.put("field", field);
    }
    respond(exchange, code, node);
  }

  private static void respond(Exchange exchange, int code, ObjectNode node) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(node);
    } catch (IOException e) { // a tree of strings and booleans always serializes
      throw new UncheckedIOException(e);
    }
    exchange.setHeader("Content-Type", "application/json");
    exchange.response().setStatus(code);
    exchange.response().write(true, ByteBuffer.wrap(bytes), exchange.callback());
  }
}
