package io.tenantry.backup.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The embedded default: a directory, one file per object at {@code <root>/<path>}. A create streams
 * into {@code <root>/.incoming/}, syncs, then hard-links the file into place: the link fails if
 * the path is taken (so objects are never replaced) and a reader or a crash sees the whole object
 * or none. Leftovers of interrupted creates stay in {@code .incoming}, outside every prefix.
 * The directory must exist: a missing one (an unmounted volume) is an unavailable store, never an
 * empty one.
 */
public final class LocalBackupStore implements BackupStore {

  private static final String INCOMING = ".incoming";
  private final Path root;

  public LocalBackupStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  @Override
  public String describe() {
    return "file:" + root;
  }

  @Override
  public StoredObject create(String path, InputStream content) {
    Path target = resolve(path);
    requireRoot();
    Path temp = null;
    try {
      Path incoming = root.resolve(INCOMING);
      Files.createDirectories(incoming);
      temp = incoming.resolve(UUID.randomUUID().toString());
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          OutputStream out = java.nio.channels.Channels.newOutputStream(channel)) {
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = SourceFailedException.read(content, buffer, path)) >= 0; ) {
          out.write(buffer, 0, n);
        }
        channel.force(true);
      }
      Files.createDirectories(target.getParent());
      Files.createLink(target, temp);
      syncDirectory(target.getParent()); // the link survives a crash once the create returns
      return stat(path).orElseThrow(() -> new NoSuchObjectException(describe(), path));
    } catch (FileAlreadyExistsException e) {
      throw new ObjectExistsException(path);
    } catch (IOException e) {
      throw new BackupStoreUnavailableException(describe(), "cannot write " + path + ": " + e, e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException e) {
          // Stays in .incoming, outside every prefix: harmless.
        }
      }
    }
  }

  @Override
  public Optional<StoredObject> stat(String path) {
    Path file = resolve(path);
    requireRoot();
    try (InputStream in = Files.newInputStream(file)) {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      CRC32C crc = new CRC32C();
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        crc.update(buffer, 0, n);
      }
      return Optional.of(new StoredObject(path, attributes.size(), Crc32cs.base64(crc),
          attributes.lastModifiedTime().toInstant()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new BackupStoreUnavailableException(describe(), "cannot read " + path + ": " + e, e);
    }
  }

  @Override
  public InputStream open(String path) {
    Path file = resolve(path);
    requireRoot();
    try {
      return Files.newInputStream(file);
    } catch (NoSuchFileException e) {
      throw new NoSuchObjectException(describe(), path);
    } catch (IOException e) {
      throw new BackupStoreUnavailableException(describe(), "cannot read " + path + ": " + e, e);
    }
  }

  @Override
  public List<StoredObject> list(String prefix) {
    requireRoot();
    int slash = prefix.lastIndexOf('/');
    Path dir = slash < 0 ? root : resolve(prefix.substring(0, slash));
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<StoredObject> objects = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).toList()) {
        String path = root.relativize(file).toString();
        if (path.startsWith(prefix) && !path.startsWith(INCOMING)) {
          BasicFileAttributes attributes;
          try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
          } catch (NoSuchFileException e) {
            continue; // deleted since the walk saw it
          }
          objects.add(new StoredObject(path, attributes.size(), null, attributes.lastModifiedTime().toInstant()));
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new BackupStoreUnavailableException(describe(), "cannot list " + prefix + ": " + e, e);
    }
    return objects;
  }

  @Override
  public void delete(String path) {
    Path file = resolve(path);
    requireRoot();
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new BackupStoreUnavailableException(describe(), "cannot delete " + path + ": " + e, e);
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private void requireRoot() {
    if (!Files.isDirectory(root)) {
      throw new BackupStoreUnavailableException(describe(), "the directory does not exist", null);
    }
  }

  /**
   * The file of {@code path}, refusing any path that would leave the root or enter .incoming, and
   * any path not in its normal form ({@code ./.incoming/x}, {@code a//b}): one object, one path.
   */
  private Path resolve(String path) {
    Path file = root.resolve(path).normalize();
    if (path.isEmpty() || path.startsWith("/") || !file.startsWith(root) || file.equals(root)
        || !root.relativize(file).toString().equals(path) || path.startsWith(INCOMING) || path.contains("..")) {
      throw new IllegalArgumentException("not an object path: '" + path + "'");
    }
    return file;
  }
}
