package io.tenantry.secretstore;

/**
 * Who a secret belongs to: the template scope (secrets copied into every tenant namespace) or one
 * tenant. A scope is a folder of the store: {@code template/} or {@code tenants/<tenant>/}.
 */
public sealed interface Scope permits Scope.Template, Scope.Tenant {

  static Scope template() {
    return Template.INSTANCE;
  }

  /** A tenant's scope; refuses a name that is not a DNS label (field {@code tenant}). */
  static Scope tenant(String name) {
    return new Tenant(name);
  }

  /** The scope's folder in the store, without a trailing slash. */
  String path();

  /** The secrets copied into every tenant namespace. */
  record Template() implements Scope {
    private static final Template INSTANCE = new Template();

    @Override
    public String path() {
      return "template";
    }

    @Override
    public String toString() {
      return "template";
    }
  }

  /** One tenant's own secrets, such as its database credentials. */
  record Tenant(String name) implements Scope {
    public Tenant {
      Names.requireTenantName(name);
    }

    @Override
    public String path() {
      return "tenants/" + name;
    }

    @Override
    public String toString() {
      return "tenant " + name;
    }
  }
}
