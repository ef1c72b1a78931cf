package io.tenantry.controller.apply;

/**
 * A tenant's namespace name is taken by a namespace Tenantry did not make. It is never taken
 * over: its contents are someone else's, and purging the tenant would delete them.
 */
public final class NamespaceTakenException extends RuntimeException {

  public NamespaceTakenException(String namespace) {
    super("namespace " + namespace + " exists and was not made by Tenantry: it is never taken over. Rename or delete it,"
        + " or give the tenant another name");
  }
}
