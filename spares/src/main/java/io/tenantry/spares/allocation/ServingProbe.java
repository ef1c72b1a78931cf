package io.tenantry.spares.allocation;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Whether the edge serves a hostname yet: a Gateway reloads its routes a moment after it accepts
 * them (Traefik writes its verdict first), so a tenant whose status says it is routed can still
 * meet a 404 there. A probe sends {@code GET /} for the hostname to one HTTP listener of the edge
 * and takes any answer but 404 and 503 (what a gateway answers for a host it has no route for, or
 * no ready backend) as served. An app whose own root answers 404 is therefore never seen served.
 */
@FunctionalInterface
public interface ServingProbe {

  /** No probe configured: the tenant's status alone decides. */
  ServingProbe NONE = hostname -> true;

  /** How long one probe waits to connect and for the answer's status line. */
  Duration TIMEOUT = Duration.ofSeconds(1);

  boolean serves(String hostname);

  /**
   * A probe of the HTTP listener at {@code address} ({@code host:port}, e.g. the Gateway's
   * in-cluster Service); empty: {@link #NONE}.
   */
  static ServingProbe at(String address) {
    if (address == null || address.isBlank()) {
      return NONE;
    }
    int colon = address.lastIndexOf(':');
    int port;
    try {
      port = colon < 1 ? -1 : Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("allocation.servingProbeAddress: must be host:port, not " + address);
    }
    String host = address.substring(0, colon);
    int listener = port;
    return hostname -> {
      int status = status(host, listener, hostname);
      return status > 0 && status != 404 && status != 503;
    };
  }

  /** The status of {@code GET /} for {@code hostname} at host:port; -1 when there is no answer. */
  private static int status(String host, int port, String hostname) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), (int) TIMEOUT.toMillis());
      socket.setSoTimeout((int) TIMEOUT.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(("GET / HTTP/1.1\r\nHost: " + hostname + "\r\nUser-Agent: tenantry-serving-probe\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] line = in.readNBytes(12); // "HTTP/1.1 200"
      String text = new String(line, StandardCharsets.US_ASCII);
      return text.length() == 12 && text.startsWith("HTTP/") ? Integer.parseInt(text.substring(9, 12)) : -1;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }
}
