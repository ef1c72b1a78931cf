package io.tenantry.controller.resources;

import io.tenantry.api.WellKnown;
import java.util.LinkedHashMap;
import java.util.Map;

/** The labels and annotations the operator puts on what it owns. */
public final class Labels {

  /** Marks every object the operator owns; informers watch only objects carrying it. */
  public static final String MANAGED_BY = WellKnown.MANAGED_BY;
  public static final String MANAGER = WellKnown.MANAGER;
  /** The owning tenant's name; the cache indexes owned objects by it. */
  public static final String TENANT = WellKnown.TENANT;
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String NAME = "app.kubernetes.io/name";
  public static final String VERSION = "app.kubernetes.io/version";

  public static final String COMPONENT_APP = "app";
  public static final String COMPONENT_DATABASE = "database";
  public static final String COMPONENT_POOLER = "pooler";
  public static final String COMPONENT_MIGRATION = "migration";
  public static final String COMPONENT_BACKUP = "backup";

  private Labels() {
  }

  /** The labels of every object owned for {@code tenant}. */
  public static Map<String, String> owned(String tenant) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(MANAGED_BY, MANAGER);
    labels.put(TENANT, tenant);
    return labels;
  }

  /** The immutable selector of one app's or database's pods. */
  public static Map<String, String> selector(String tenant, String component, String name) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(TENANT, tenant);
    labels.put(COMPONENT, component);
    labels.put(NAME, name);
    return labels;
  }

  /** Owned labels plus the workload's selector labels. */
  public static Map<String, String> workload(String tenant, String component, String name) {
    Map<String, String> labels = owned(tenant);
    labels.putAll(selector(tenant, component, name));
    return labels;
  }
}
