package io.tenantry.api;

import java.time.Duration;

/**
 * The one rule for the work a signup causes behind its answer that its customer does not wait for
 * (the fleet record and its mark, the pool's replacements and status), when
 * {@code allocation.holdDuringSignupBursts} is on: in a burst of signups it waits until they pause
 * for {@link #PAUSE}, at most {@link #MAX_HOLD}. Done at once, those writes reach the API server
 * between the binds of the signups still arriving. The bound tenant's own first sync (its route,
 * identity and status) is never held: the customer's first page waits for it. Each caller keeps its
 * own clock. The pool's refill may wait longer: while its buffer covers the stream, until the
 * signups pause, and then until the edge has judged its customers' routes, at most MAX_HOLD after
 * each bind (SparePoolReconciler).
 */
public final class SignupPause {

  /** How long no signup must arrive for a burst to be over. */
  public static final Duration PAUSE = Duration.ofSeconds(1);
  /** The longest held work waits, however long the burst lasts (a pool's refill aside, see above). */
  public static final Duration MAX_HOLD = Duration.ofSeconds(10);

  private SignupPause() {
  }

  /**
   * How much longer work held for {@code held} waits, the latest signup {@code sinceSignup} ago;
   * zero: do it now.
   */
  public static Duration holdLeft(Duration sinceSignup, Duration held) {
    Duration left = PAUSE.minus(sinceSignup);
    Duration cap = MAX_HOLD.minus(held);
    Duration wait = left.compareTo(cap) <= 0 ? left : cap;
    return wait.isNegative() ? Duration.ZERO : wait;
  }

  /** Whether a signup {@code sinceSignup} after the one before belongs to that one's burst. */
  public static boolean inBurst(Duration sinceSignup) {
    return sinceSignup.compareTo(PAUSE) < 0;
  }
}
