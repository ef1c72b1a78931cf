package io.tenantry.secretstore.sync;

import java.util.List;

/**
 * A {@link TemplateSync} that would have deleted too many template Secrets at once (every one, as
 * the store lists none, or more than the allowed share) and so changed nothing. The message says
 * why and what to do; the Secrets stay until the store lists them again or someone deletes them.
 */
public final class TemplateDeletionRefusedException extends RuntimeException {

  private final String namespace;
  private final List<String> refused;
  private final int present;

  TemplateDeletionRefusedException(String namespace, List<String> refused, int present, String message) {
    super(message);
    this.namespace = namespace;
    this.refused = List.copyOf(refused);
    this.present = present;
  }

  /** The template namespace. */
  public String namespace() {
    return namespace;
  }

  /** The names of the template Secrets the sync would have deleted, sorted. */
  public List<String> refused() {
    return refused;
  }

  /** How many template Secrets the namespace held. */
  public int present() {
    return present;
  }
}
