package io.tenantry.deploy.rollout;

/**
 * A rollout request refused before anything is written. {@link #field()} names the input as
 * {@code tenantctl} spells it ({@code --app}, {@code --tenants}, {@code --wave-size}, ...), so the
 * CLI can show the message as it is.
 */
public class RolloutInputException extends IllegalArgumentException {

  private final String field;

  public RolloutInputException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
