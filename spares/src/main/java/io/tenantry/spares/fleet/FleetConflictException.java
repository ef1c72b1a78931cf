package io.tenantry.spares.fleet;

/**
 * A write that is well-formed but contradicts the records already stored, such as allocating a
 * tenant that another request id already holds. {@link #field()} names the input in conflict.
 * Nothing is written when this is thrown.
 */
public class FleetConflictException extends RuntimeException {

  private final String field;

  public FleetConflictException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The input that conflicts with the stored records. */
  public String field() {
    return field;
  }
}
