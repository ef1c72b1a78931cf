package io.tenantry.backup.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads its source ahead on a thread of its own, up to {@code chunks} chunks of {@code chunkSize}
 * bytes, so that the writer at the other end of a FIFO keeps writing while the reader of this
 * stream is busy. A pipe holds 64 KiB: read directly, pg_dump stopped at every 1 MiB segment the
 * agent encrypted and uploaded, and a backup took the sum of both instead of the longer
 * (measured by tools/bench-backup.sh; see docs/benchmarks.md). Bytes come out in order; an
 * {@link IOException} of the source is thrown by the read that reaches it. Closing it stops the
 * thread and closes the source. Whole chunks, once read, are filled again rather than allocated:
 * a fresh chunk for every 256 KiB with 16 MiB in flight kept the agent's small heap collecting,
 * about 3 s of CPU for 1 GiB (tools/bench-backup.sh).
 */
final class ReadAheadInputStream extends InputStream {

  private static final byte[] END = new byte[0];
  private final InputStream source;
  private final int chunkSize;
  private final BlockingQueue<byte[]> queue;
  private final BlockingQueue<byte[]> free;
  private final Thread reader;
  private volatile IOException failure;
  private volatile boolean closed;
  private byte[] current;
  private int position;

  ReadAheadInputStream(InputStream source, int chunkSize, int chunks) {
    this.source = source;
    this.chunkSize = chunkSize;
    this.queue = new ArrayBlockingQueue<>(chunks);
    this.free = new ArrayBlockingQueue<>(chunks + 2); // the queue's, the one being filled, the one being read
    this.reader = new Thread(this::readAhead, "read-ahead");
    reader.setDaemon(true);
    reader.start();
  }

  private void readAhead() {
    try {
      while (!closed) {
        byte[] chunk = free.poll();
        if (chunk == null) {
          chunk = new byte[chunkSize];
        }
        int n = source.readNBytes(chunk, 0, chunkSize); // fewer bytes only at the end
        if (n > 0) {
          queue.put(n == chunkSize ? chunk : java.util.Arrays.copyOf(chunk, n));
        }
        if (n < chunkSize) {
          break;
        }
      }
    } catch (IOException e) {
      failure = e;
    } catch (InterruptedException e) {
      return; // closed
    }
    try {
      queue.put(END);
    } catch (InterruptedException e) {
      // closed
    }
  }

  /** The chunk to read from, or null at the end. */
  private byte[] chunk() throws IOException {
    if (current == END) {
      return null;
    }
    if (current == null || position == current.length) {
      if (current != null && current.length == chunkSize) {
        free.offer(current); // read to its end: the reader fills it again
      }
      try {
        current = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading ahead");
      }
      position = 0;
      if (current == END) {
        if (failure != null) {
          throw new IOException(failure.getMessage(), failure);
        }
        return null;
      }
    }
    return current;
  }

  @Override
  public int read() throws IOException {
    byte[] chunk = chunk();
    return chunk == null ? -1 : chunk[position++] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    byte[] chunk = chunk();
    if (chunk == null) {
      return -1;
    }
    int n = Math.min(len, chunk.length - position);
    System.arraycopy(chunk, position, b, off, n);
    position += n;
    return n;
  }

  /** Writes whole chunks, without copying them. */
  @Override
  public long transferTo(OutputStream out) throws IOException {
    long transferred = 0;
    for (byte[] chunk; (chunk = chunk()) != null; ) {
      out.write(chunk, position, chunk.length - position);
      transferred += chunk.length - position;
      position = chunk.length;
    }
    return transferred;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    reader.interrupt();
    source.close();
  }
}
