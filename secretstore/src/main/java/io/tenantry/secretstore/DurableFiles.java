package io.tenantry.secretstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/** Whole-file writes that a crash or a concurrent reader never sees half done. */
final class DurableFiles {

  private DurableFiles() {
  }

  /** Creates the directory and its parents, owner-only (0700) on POSIX file systems. */
  static void createPrivateDirectories(Path dir) throws IOException {
    if (posix(dir)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } else {
      Files.createDirectories(dir);
    }
  }

  /**
   * Writes a new owner-only file in {@code dir} (temporary files are 0600 on POSIX), flushed to disk,
   * named with {@code prefix}; returns it. The caller moves or links it into place.
   */
  static Path writeTemp(Path dir, String prefix, byte[] bytes) throws IOException {
    FileAttribute<?>[] attributes = posix(dir)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
        : new FileAttribute<?>[0];
    Path temp = Files.createTempFile(dir, prefix, ".tmp", attributes);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    return temp;
  }

  /** Replaces {@code target} with {@code bytes} by an atomic rename of a flushed temporary file. */
  static void replaceAtomically(Path target, byte[] bytes) throws IOException {
    Path dir = target.getParent();
    Path temp = writeTemp(dir, "." + target.getFileName() + ".", bytes);
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    syncDirectory(dir);
  }

  /** Flushes a directory's entries, so that a rename or delete survives a crash. */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (UnsupportedOperationException e) {
      // Some file systems (and non-POSIX platforms) cannot open or flush a directory; the rename
      // itself is still atomic there, only its durability on power loss is up to the OS.
    }
  }

  static boolean posix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
