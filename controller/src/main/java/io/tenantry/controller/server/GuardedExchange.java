package io.tenantry.controller.server;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * An exchange whose socket reads and writes run under its request's {@link Deadlines.Guard}: the
 * handler sees the same exchange, except that its request body is read (up to a buffer) before the
 * handler runs, and every blocking call on the connection is bounded in time.
 */
final class GuardedExchange extends HttpExchange {

  private final HttpExchange exchange;
  private final Deadlines.Guard guard;
  private InputStream body;
  private OutputStream response;
  private boolean responseStarted;

  GuardedExchange(HttpExchange exchange, Deadlines.Guard guard) {
    this.exchange = exchange;
    this.guard = guard;
  }

  /**
   * Reads up to {@code limit} bytes of the request body now, under the read limit, so that a slow
   * sender holds a connection thread and never one of the handlers. A longer body is read on by
   * the handler, under the same limit.
   *
   * @throws Deadlines.RequestTimeoutException the client was still sending when the read limit passed
   */
  void bufferBody(int limit) throws IOException {
    InputStream raw = new GuardedInput(exchange.getRequestBody());
    byte[] head = raw.readNBytes(limit);
    body = head.length < limit
        ? new ByteArrayInputStream(head) // All of it: nothing left on the connection to drain.
        : new SequenceInputStream(new ByteArrayInputStream(head), raw);
  }

  /** Whether the status line went out: past that, no other answer can be given. */
  boolean responseStarted() {
    return responseStarted;
  }

  @Override
  public InputStream getRequestBody() {
    if (body == null) {
      body = new GuardedInput(exchange.getRequestBody());
    }
    return body;
  }

  @Override
  public OutputStream getResponseBody() {
    if (response == null) {
      response = new GuardedOutput(exchange.getResponseBody());
    }
    return response;
  }

  @Override
  public void sendResponseHeaders(int code, long length) throws IOException {
    guard.writing();
    try {
      exchange.sendResponseHeaders(code, length);
      responseStarted = true;
    } finally {
      guard.exit();
    }
  }

  /** Ends the exchange: drains what is left of the request and flushes the answer, under the write limit. */
  @Override
  public void close() {
    guard.writing();
    try {
      exchange.close();
    } finally {
      guard.exit();
    }
  }

  @Override
  public void setStreams(InputStream in, OutputStream out) {
    if (in != null) {
      body = in;
    }
    if (out != null) {
      response = out;
    }
  }

  @Override
  public Headers getRequestHeaders() {
    return exchange.getRequestHeaders();
  }

  @Override
  public Headers getResponseHeaders() {
    return exchange.getResponseHeaders();
  }

  @Override
  public URI getRequestURI() {
    return exchange.getRequestURI();
  }

  @Override
  public String getRequestMethod() {
    return exchange.getRequestMethod();
  }

  @Override
  public HttpContext getHttpContext() {
    return exchange.getHttpContext();
  }

  @Override
  public InetSocketAddress getRemoteAddress() {
    return exchange.getRemoteAddress();
  }

  @Override
  public int getResponseCode() {
    return exchange.getResponseCode();
  }

  @Override
  public InetSocketAddress getLocalAddress() {
    return exchange.getLocalAddress();
  }

  @Override
  public String getProtocol() {
    return exchange.getProtocol();
  }

  @Override
  public Object getAttribute(String name) {
    return exchange.getAttribute(name);
  }

  @Override
  public void setAttribute(String name, Object value) {
    exchange.setAttribute(name, value);
  }

  @Override
  public HttpPrincipal getPrincipal() {
    return exchange.getPrincipal();
  }

  /** The request body: each read refused past the read limit, and cut off when blocked past it. */
  private final class GuardedInput extends FilterInputStream {

    GuardedInput(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      guard.reading();
      try {
        return in.read();
      } finally {
        guard.exit();
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      guard.reading();
      try {
        return in.read(b, off, len);
      } finally {
        guard.exit();
      }
    }

    @Override
    public long skip(long n) throws IOException {
      guard.reading();
      try {
        return in.skip(n);
      } finally {
        guard.exit();
      }
    }

    @Override
    public void close() throws IOException {
      guard.draining();
      try {
        in.close();
      } finally {
        guard.exit();
      }
    }
  }

  /** The answer's body: every write and flush under the write limit. */
  private final class GuardedOutput extends FilterOutputStream {

    GuardedOutput(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      guard.writing();
      try {
        out.write(b);
      } finally {
        guard.exit();
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      guard.writing();
      try {
        out.write(b, off, len);
      } finally {
        guard.exit();
      }
    }

    @Override
    public void flush() throws IOException {
      guard.writing();
      try {
        out.flush();
      } finally {
        guard.exit();
      }
    }

    @Override
    public void close() throws IOException {
      guard.writing();
      try {
        out.close();
      } finally {
        guard.exit();
      }
    }
  }
}
