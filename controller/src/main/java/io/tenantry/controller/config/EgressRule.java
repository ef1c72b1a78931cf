package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * Destinations a plan's pods may reach beyond their namespace and DNS: one NetworkPolicy egress
 * rule. The cloud metadata address is left out of every block that holds it ({@link Cidr#METADATA}).
 */
public record EgressRule(
    @JsonPropertyDescription("The destination block, e.g. 0.0.0.0/0 (IPv4 or IPv6).")
    String cidr,
    @JsonPropertyDescription("Blocks inside cidr that stay unreachable, e.g. the cluster's and the company's private ranges.")
    List<String> except,
    @JsonPropertyDescription("TCP ports allowed; empty: every port and protocol.")
    List<Integer> ports) {

  public EgressRule {
    except = except == null ? List.of() : List.copyOf(except);
    ports = ports == null ? List.of() : List.copyOf(ports);
  }

  void validate(String path, List<String> errors) {
    Cidr block;
    try {
      block = Cidr.parse(cidr);
    } catch (IllegalArgumentException e) {
      errors.add(path + ".cidr: " + e.getMessage());
      return;
    }
    if (Cidr.METADATA.stream().anyMatch(m -> m.contains(block))) {
      errors.add(path + ".cidr: " + cidr + " is the cloud metadata address, which tenants never reach");
    }
    for (int i = 0; i < except.size(); i++) {
      try {
        Cidr excepted = Cidr.parse(except.get(i));
        if (!block.contains(excepted) || excepted.prefixLength() <= block.prefixLength()) {
          errors.add(path + ".except[" + i + "]: " + except.get(i) + " must be a smaller block inside " + cidr);
        }
      } catch (IllegalArgumentException e) {
        errors.add(path + ".except[" + i + "]: " + e.getMessage());
      }
    }
    for (int i = 0; i < ports.size(); i++) {
      if (ports.get(i) == null || ports.get(i) < 1 || ports.get(i) > 65535) {
        errors.add(path + ".ports[" + i + "]: must be a port between 1 and 65535");
      }
    }
  }

  /** {@link #except} plus each metadata address inside {@link #cidr} that no except already covers. */
  public List<String> exceptWithMetadata() {
    Cidr block = Cidr.parse(cidr);
    List<Cidr> excepted = except.stream().map(Cidr::parse).toList();
    List<String> result = new java.util.ArrayList<>(except);
    for (Cidr metadata : Cidr.METADATA) {
      if (block.contains(metadata) && excepted.stream().noneMatch(e -> e.contains(metadata))) {
        result.add(metadata.toString());
      }
    }
    return result;
  }
}
