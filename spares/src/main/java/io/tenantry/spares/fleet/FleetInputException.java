package io.tenantry.spares.fleet;

/**
 * An input the fleet records refuse before touching Datastore; {@link #field()} names it
 * ({@code requestId}, {@code tenant}, {@code cluster}, {@code email}, ...). Nothing is written when
 * this is thrown.
 */
public class FleetInputException extends IllegalArgumentException {

  private final String field;

  public FleetInputException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The refused input, as named in the public API. */
  public String field() {
    return field;
  }
}
