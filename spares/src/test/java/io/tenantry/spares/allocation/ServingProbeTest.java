package io.tenantry.spares.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ServingProbe} against a local HTTP server playing the edge: hosts it routes, and those it does not. */
class ServingProbeTest {

  private final List<String> hostsAsked = new CopyOnWriteArrayList<>();
  private HttpServer edge;

  @AfterEach
  void stop() {
    if (edge != null) {
      edge.stop(0);
    }
  }

  /** An edge answering {@code statuses} by Host header, 404 for any other host. */
  private ServingProbe edge(Map<String, Integer> statuses) throws IOException {
    edge = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    edge.createContext("/", exchange -> {
      String host = exchange.getRequestHeaders().getFirst("Host");
      hostsAsked.add(host);
      exchange.sendResponseHeaders(statuses.getOrDefault(host, 404), -1);
      exchange.close();
    });
    edge.start();
    return ServingProbe.at("127.0.0.1:" + edge.getAddress().getPort());
  }

  @Test
  void aHostTheEdgeRoutesServesWhateverTheAppAnswersButNotFoundAndUnavailable() throws IOException {
    ServingProbe probe = edge(Map.of("acme.tenants.example", 200, "login.tenants.example", 302,
        "starting.tenants.example", 503));

    assertThat(probe.serves("acme.tenants.example")).isTrue();
    assertThat(probe.serves("login.tenants.example")).isTrue();
    assertThat(probe.serves("starting.tenants.example")).as("no ready backend yet").isFalse();
    assertThat(probe.serves("unrouted.tenants.example")).as("the gateway's 404").isFalse();
    assertThat(hostsAsked).containsExactly("acme.tenants.example", "login.tenants.example", "starting.tenants.example",
        "unrouted.tenants.example");
  }

  @Test
  void anEdgeThatDoesNotAnswerServesNothing() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    assertThat(ServingProbe.at("127.0.0.1:" + closed).serves("acme.tenants.example")).isFalse();
  }

  @Test
  void noAddressIsNoProbeAndABadOneIsRefused() {
    assertThat(ServingProbe.at("")).isSameAs(ServingProbe.NONE);
    assertThat(ServingProbe.NONE.serves("anything.example")).isTrue();
    assertThatThrownBy(() -> ServingProbe.at("edge")).hasMessageContaining("allocation.servingProbeAddress");
    assertThatThrownBy(() -> ServingProbe.at("edge:http")).hasMessageContaining("allocation.servingProbeAddress");
  }
}
