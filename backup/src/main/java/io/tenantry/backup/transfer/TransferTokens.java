package io.tenantry.backup.transfer;

import com.google.crypto.tink.Aead;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.Json;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

/**
 * The only credentials a tenant namespace ever holds for the backup store: a token that lets its
 * bearer upload one object (once: the store never replaces an object) or download one object, until
 * it expires. A token is the grant itself, sealed with the store's key, so any operator replica can
 * check it and a forged or altered one fails to open; nothing else about the store can be done
 * with it (no listing, no deleting, no other path).
 */
public final class TransferTokens {

  /** What a token lets its bearer do with its one object. */
  public enum Access { UPLOAD, DOWNLOAD }

  /**
   * A verified token's grant: {@code access} to the object at {@code path}, and the creation of one
   * report at {@code report} (where the agent says how its transfer, or its restore, went).
   */
  public record Grant(Access access, String path, String report, Instant expires) {
  }

  private static final byte[] AD = "tenantry backup transfer token v1".getBytes(StandardCharsets.UTF_8);
  private final Aead kek;
  private final Clock clock;

  public TransferTokens(Aead kek, Clock clock) {
    this.kek = kek;
    this.clock = clock;
  }

  /**
   * A token granting {@code access} to the object at {@code path} for {@code ttl}; an upload's
   * report goes beside its object, a download grants no report.
   */
  public String issue(Access access, String path, Duration ttl) {
    return issue(access, path, access == Access.UPLOAD ? BackupLocation.reportPathOf(path) : null, ttl);
  }

  /** A token granting {@code access} to the object at {@code path} and one report at {@code report}, for {@code ttl}. */
  public String issue(Access access, String path, String report, Duration ttl) {
    Grant grant = new Grant(access, path, report, clock.instant().plus(ttl));
    try {
      byte[] sealed = kek.encrypt(Json.GSON.toJson(grant).getBytes(StandardCharsets.UTF_8), AD);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(sealed);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot seal a transfer token: " + e.getMessage(), e);
    }
  }

  /**
   * The grant of {@code token}.
   *
   * @throws InvalidTokenException if the token is malformed, was not sealed by the store's key, or has expired
   */
  public Grant verify(String token) {
    Grant grant;
    try {
      byte[] json = kek.decrypt(Base64.getUrlDecoder().decode(token), AD);
      grant = Json.GSON.fromJson(new String(json, StandardCharsets.UTF_8), Grant.class);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new InvalidTokenException("not a transfer token of this store");
    }
    if (grant == null || grant.access() == null || grant.path() == null || grant.expires() == null) {
      throw new InvalidTokenException("not a transfer token of this store");
    }
    if (!clock.instant().isBefore(grant.expires())) {
      throw new InvalidTokenException("the transfer token expired at " + grant.expires());
    }
    return grant;
  }

  /** A token that grants nothing. */
  public static final class InvalidTokenException extends RuntimeException {
    public InvalidTokenException(String message) {
      super(message);
    }
  }
}
