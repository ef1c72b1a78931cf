package io.tenantry.deploy.rollout;

import java.util.List;

/**
 * Which tenants a rollout targets: named ones, those matching a label selector, or all. Unallocated
 * spares are never selected (they follow their pool's template), nor are tenants that are not New
 * or Active (their workloads are scaled down or gone, so they could never report Ready).
 *
 * @param names the tenants, for {@link Kind#NAMES}; empty otherwise
 * @param selector a Kubernetes label selector, for {@link Kind#SELECTOR}; null otherwise
 */
public record Selection(Kind kind, List<String> names, String selector) {

  public enum Kind { NAMES, SELECTOR, ALL }

  public Selection {
    names = List.copyOf(names);
  }

  public static Selection names(List<String> names) {
    return new Selection(Kind.NAMES, names, null);
  }

  public static Selection selector(String selector) {
    return new Selection(Kind.SELECTOR, List.of(), selector);
  }

  public static Selection all() {
    return new Selection(Kind.ALL, List.of(), null);
  }

  /** As the flag that made it: {@code --tenants a,b}, {@code --selector tier=gold}, {@code --all}. */
  public String describe() {
    return switch (kind) {
      case NAMES -> "--tenants " + String.join(",", names);
      case SELECTOR -> "--selector " + selector;
      case ALL -> "--all";
    };
  }

  /** The inverse of {@link #describe()}, for records read back from storage. */
  public static Selection parse(String described) {
    if (described.equals("--all")) {
      return all();
    }
    if (described.startsWith("--tenants ")) {
      return names(List.of(described.substring("--tenants ".length()).split(",")));
    }
    if (described.startsWith("--selector ")) {
      return selector(described.substring("--selector ".length()));
    }
    throw new IllegalArgumentException("not a selection: " + described);
  }
}
