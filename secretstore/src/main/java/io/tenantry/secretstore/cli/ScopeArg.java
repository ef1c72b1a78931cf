package io.tenantry.secretstore.cli;

import io.tenantry.secretstore.InvalidInputException;
import io.tenantry.secretstore.Scope;

/** The command line's spelling of a {@link Scope}: {@code template} or {@code tenant/<name>}. */
final class ScopeArg {

  private static final String TENANT_PREFIX = "tenant/";

  private ScopeArg() {
  }

  /** The scope named by {@code arg}; a bad tenant name fails with the store's message, which names the field. */
  static Scope parse(String arg) {
    if (arg.equals("template")) {
      return Scope.template();
    }
    if (arg.startsWith(TENANT_PREFIX)) {
      try {
        return Scope.tenant(arg.substring(TENANT_PREFIX.length()));
      } catch (InvalidInputException e) {
        throw new UsageException("scope \"" + arg + "\": " + e.getMessage());
      }
    }
    throw new UsageException("scope must be \"template\" or \"tenant/<name>\": \"" + arg + "\"");
  }

  static String format(Scope scope) {
    return scope instanceof Scope.Tenant tenant ? TENANT_PREFIX + tenant.name() : "template";
  }
}
