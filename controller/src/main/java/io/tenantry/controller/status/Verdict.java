package io.tenantry.controller.status;

/** A condition's status (True, False, Unknown), reason and message, before it is stamped with times. */
public record Verdict(String status, Reason reason, String message) {
}
