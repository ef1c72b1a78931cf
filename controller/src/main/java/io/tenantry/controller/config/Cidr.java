package io.tenantry.controller.config;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** An IPv4 or IPv6 address block, {@code address/prefix}, as a NetworkPolicy's ipBlock takes it. */
public final class Cidr {

  /** The link-local addresses of cloud metadata servers (GCP, AWS, Azure; AWS's IPv6 one): never reachable from a tenant. */
  public static final List<Cidr> METADATA = List.of(parse("169.254.169.254/32"), parse("fd00:ec2::254/128"));

  private final String text;
  private final int width;
  private final BigInteger network;
  private final int prefix;

  private Cidr(String text, int width, BigInteger network, int prefix) {
    this.text = text;
    this.width = width;
    this.network = network;
    this.prefix = prefix;
  }

  /** Parses {@code a.b.c.d/n} or {@code x:y::z/n}; throws IllegalArgumentException saying what is wrong. */
  public static Cidr parse(String text) {
    int slash = text == null ? -1 : text.indexOf('/');
    String address = slash < 0 ? "" : text.substring(0, slash);
    // Literal addresses only: InetAddress would resolve a host name.
    if (!address.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
      throw new IllegalArgumentException("'" + text + "' is not a CIDR (address/prefix)");
    }
    byte[] bytes;
    int prefix;
    try {
      bytes = InetAddress.getByName(address).getAddress();
      prefix = Integer.parseInt(text.substring(slash + 1));
    } catch (UnknownHostException | NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a CIDR (address/prefix)", e);
    }
    int width = bytes.length * 8;
    if (prefix < 0 || prefix > width) {
      throw new IllegalArgumentException("'" + text + "': the prefix must be between 0 and " + width);
    }
    BigInteger bits = new BigInteger(1, bytes);
    if (!bits.equals(mask(bits, width, prefix))) {
      throw new IllegalArgumentException("'" + text + "' has bits set after its prefix");
    }
    return new Cidr(text, width, bits, prefix);
  }

  /** Whether every address of {@code other} is in this block (false across IPv4 and IPv6). */
  public boolean contains(Cidr other) {
    return width == other.width && prefix <= other.prefix && mask(other.network, width, prefix).equals(network);
  }

  public int prefixLength() {
    return prefix;
  }

  /** As written. */
  @Override
  public String toString() {
    return text;
  }

  private static BigInteger mask(BigInteger address, int width, int prefix) {
    return address.shiftRight(width - prefix).shiftLeft(width - prefix);
  }
}
