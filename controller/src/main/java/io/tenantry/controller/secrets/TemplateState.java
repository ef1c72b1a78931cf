package io.tenantry.controller.secrets;

/** Whether the template namespace could last be refreshed from the store, as every tenant reports it. */
public interface TemplateState {

  /** Why the last refresh failed, or null. */
  String error();

  /** Changes whenever {@link #error()} does: part of what a converged tenant's sync depends on. */
  long stateVersion();
}
