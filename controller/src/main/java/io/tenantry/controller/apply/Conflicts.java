package io.tenantry.controller.apply;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** Recognizes a lost resourceVersion race (HTTP 409): the cache was behind, and a retry on fresh data is all it takes. */
public final class Conflicts {

  private Conflicts() {
  }

  public static boolean isConflict(Exception error) {
    return error instanceof KubernetesClientException k && k.getCode() == 409;
  }
}
