package io.tenantry.secretstore;

/** A scope, name or data map that the store refuses; {@link #field()} names the offending input. */
public final class InvalidInputException extends IllegalArgumentException {

  private final String field;

  public InvalidInputException(String field, String message) {
    super(message);
    this.field = field;
  }

  /** The input that was refused: {@code tenant}, {@code name}, {@code data} or {@code expectedVersion}. */
  public String field() {
    return field;
  }
}
