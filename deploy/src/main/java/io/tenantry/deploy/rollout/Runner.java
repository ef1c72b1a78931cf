package io.tenantry.deploy.rollout;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * The tenantctl process running a rollout, recorded on it so that a second tenantctl does not run
 * the same rollout at once. A runner that is gone without releasing the rollout (killed) is
 * recognised at once on its own host (its process no longer exists), and elsewhere once its
 * heartbeat is older than {@link #STALE_AFTER}.
 */
public record Runner(String host, long pid, String nonce) {

  /** Several heartbeats: a runner writes one on every poll. */
  public static final Duration STALE_AFTER = Duration.ofSeconds(30);

  public static Runner current() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "unknown";
    }
    return new Runner(host, ProcessHandle.current().pid(), UUID.randomUUID().toString().substring(0, 8));
  }

  public String id() {
    return host + "/" + pid + "/" + nonce;
  }

  public static Runner parse(String id) {
    String[] parts = id.split("/", 3);
    return new Runner(parts[0], Long.parseLong(parts[1]), parts[2]);
  }

  /** Whether the recorded runner is this one, or gone, so that this one may run the rollout. */
  public boolean mayTakeOver(String recorded, Instant heartbeatAt, Instant now) {
    if (recorded == null || recorded.equals(id())) {
      return true;
    }
    Runner other = parse(recorded);
    if (other.host.equals(host) && other.pid != pid) {
      return ProcessHandle.of(other.pid).map(p -> !p.isAlive()).orElse(true);
    }
    return heartbeatAt == null || heartbeatAt.plus(STALE_AFTER).isBefore(now);
  }
}
