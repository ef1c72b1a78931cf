package io.tenantry.controller.apply;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * A write or delete of one owned object that the API server refused or that did not reach it:
 * the object, and the server's own message (the client's when there was no answer).
 */
public record WriteFailure(ObjectKey object, String message) {

  /** Long enough for any API server message about one object; a condition holds several. */
  private static final int MAX_MESSAGE = 300;

  static WriteFailure of(ObjectKey object, KubernetesClientException error) {
    String message = error.getStatus() != null && error.getStatus().getMessage() != null
        ? error.getStatus().getMessage() : String.valueOf(error.getMessage());
    return new WriteFailure(object, message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) + "..." : message);
  }

  @Override
  public String toString() {
    return object + ": " + message;
  }
}
