package io.tenantry.controller.events;

/** The two types Kubernetes Events have. */
public enum EventType {
  Normal,
  Warning
}
