package io.tenantry.controller.operator;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** Counts every HTTP request a client sends (an interceptor on the client), and remembers the last few. */
public final class RequestCounter implements Interceptor {

  private final AtomicLong count = new AtomicLong();
  private final List<String> recent = new CopyOnWriteArrayList<>();
  private final List<String> all = new CopyOnWriteArrayList<>();

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    count.incrementAndGet();
    all.add(request.method() + " " + request.uri());
    recent.add(request.method() + " " + request.uri());
    if (recent.size() > 50) {
      recent.remove(0);
    }
  }

  public long count() {
    return count.get();
  }

  /** Every request so far, as "METHOD uri". */
  public List<String> all() {
    return List.copyOf(all);
  }

  public List<String> recent() {
    return List.copyOf(recent);
  }
}
