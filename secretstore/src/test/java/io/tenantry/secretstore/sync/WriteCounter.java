package io.tenantry.secretstore.sync;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An interceptor on a client that remembers every request other than a GET (a read or a list). */
final class WriteCounter implements Interceptor {

  private final List<String> writes = new CopyOnWriteArrayList<>();

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (!request.method().equals("GET")) {
      writes.add(request.method() + " " + request.uri().getPath());
    }
  }

  void reset() {
    writes.clear();
  }

  /** Each write since the last {@link #reset()}, as "METHOD path". */
  List<String> writes() {
    return List.copyOf(writes);
  }
}
