package io.tenantry.controller.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.operator.Operator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the benchmarks that provision tenants share: the tenant they provision and how they wait and count. */
public final class BenchSupport {

  private static final Pattern REQUEST_TOTAL = Pattern.compile("^apiserver_request_total\\{(.*)} (\\S+)$");
  private static final Pattern RESOURCE = Pattern.compile("resource=\"([^\"]*)\"");
  private static final Pattern WRITE_TOTAL = Pattern.compile("^apiserver_request_total\\{.*resource=\"([^\"]*)\".*"
      + "subresource=\"([^\"]*)\".*verb=\"(POST|PUT|PATCH|APPLY|DELETE)\".*} (\\S+)$");

  private BenchSupport() {
  }

  /** The benchmarks' tenant: Active, one app, one PostgreSQL database. */
  static Tenant tenant(String name) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.setOrganization("Org " + name);
    spec.setEmail("ops@" + name + ".example");
    spec.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, 8080));
    spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi"));
    tenant.setSpec(spec);
    return tenant;
  }

  /** Waits until the operator has sent no request for 3 s ({@code operatorRequests} unchanged) and has nothing queued. */
  static void awaitQuiet(LongSupplier operatorRequests, Operator.Parts parts) throws InterruptedException {
    long last = -1;
    while (true) {
      long now = operatorRequests.getAsLong();
      if (now == last && parts.queue().len() == 0 && parts.workers().inProgress() == 0) {
        return;
      }
      last = now;
      Thread.sleep(3000);
    }
  }

  /** The API server's own count (its apiserver_request_total) of requests for {@code resources}. */
  static double serverRequests(KubernetesClient admin, Set<String> resources) {
    double total = 0;
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher m = REQUEST_TOTAL.matcher(line);
      if (m.matches()) {
        Matcher resource = RESOURCE.matcher(m.group(1));
        if (resource.find() && resources.contains(resource.group(1))) {
          total += Double.parseDouble(m.group(2));
        }
      }
    }
    return total;
  }

  /** The API server's count of writes so far, by verb and resource (its request metrics): "POST tenants", "PUT tenants/status". */
  public static Map<String, Double> writes(KubernetesClient admin) {
    Map<String, Double> writes = new TreeMap<>();
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher m = WRITE_TOTAL.matcher(line);
      if (m.matches()) {
        String key = m.group(3) + " " + m.group(1) + (m.group(2).isEmpty() ? "" : "/" + m.group(2));
        writes.merge(key, Double.parseDouble(m.group(4)), Double::sum);
      }
    }
    return writes;
  }

  /** Sends an allocation request's JSON {@code body} with the benchmarks' token; the caller reads the answer. */
  static HttpURLConnection postAllocation(URL url, byte[] body) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) url.openConnection();
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    connection.setFixedLengthStreamingMode(body.length);
    connection.setRequestProperty("Authorization", "Bearer bench-token");
    connection.setRequestProperty("Content-Type", "application/json");
    try (OutputStream out = connection.getOutputStream()) {
      out.write(body);
    }
    return connection;
  }

  static void waitUntil(BooleanSupplier condition, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + seconds + " s");
      }
      Thread.sleep(200);
    }
  }
}
