package io.tenantry.secretstore.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.secretstore.InvalidInputException;
import io.tenantry.secretstore.SecretStoreException;
import io.tenantry.secretstore.sync.TemplateDeletionRefusedException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code tenantry-secrets}, the ops CLI of the secret store: make a local store ({@code init}), push,
 * list, show and delete secrets, and fill the template namespace ({@code sync-templates}). See
 * {@link #USAGE}.
 *
 * <p>Exit status: 0 on success, 2 on a command line it refuses (the message names the argument),
 * 1 when the store or the cluster fails (the message gives the cause). No output, on either stream,
 * ever holds a secret value: values only go into the store and the cluster.
 */
public final class SecretsCli {

  static final String USAGE = """
      Usage: tenantry-secrets [STORE OPTIONS] COMMAND [ARGS]

      Manages the encrypted secret store and the template namespace. Secret values are never printed.

      Commands:
        init                  Create a new, empty local store: its directory and, if the --keyset file
                              does not exist, a new keyset (keep a copy of it: without it nothing in the
                              store can be read). Leaves an existing store as it is. Only init creates a
                              store or a keyset; every other command needs an existing store.
        push <scope> <name> (--from-literal KEY=VALUE | --from-file KEY=PATH)...
                              Store a secret, replacing any previous one; prints its new version.
        list <scope>          NAME, VERSION, CONTENT-HASH (first 12 hex digits) and UPDATED of each secret.
        show <scope> <name>   A secret's metadata, and its data keys with their sizes.
        delete <scope> <name> Delete a secret.
        sync-templates [--kubeconfig FILE] [--namespace NS] [--max-deletion-share S]
                              Make the template namespace (default tenantry-templates) hold exactly the
                              template secrets; prints how many were created, updated, deleted and left
                              unchanged. Without --kubeconfig: $KUBECONFIG, else ~/.kube/config.
                              Changes nothing and fails if it would delete every template Secret (the
                              store lists none) or more than the share S of them (0 to 1, default 0.5).

      <scope> is "template" or "tenant/<name>".

      Store options (before the command):
        --store file:DIR      A local store (default: file:$HOME/.local/share/tenantry/secret-store).
        --keyset FILE         Its Tink keyset (default: DIR/keyset.json); only init creates a missing one.
        --store gs://BUCKET   A Cloud Storage bucket, with Google application default credentials.
        --kms-key NAME        Its Cloud KMS key (required with gs://):
                              projects/P/locations/L/keyRings/R/cryptoKeys/K
        --gcs-endpoint URL    For testing: a Cloud Storage emulator (fake-gcs-server), unauthenticated.
        --kms-endpoint HOST:PORT
                              For testing: a plaintext gRPC Cloud KMS endpoint, unauthenticated.
        -h, --help            Show this help.

      Exit status: 0 done, 1 the store or the cluster failed, 2 bad usage.
      """;

  private SecretsCli() {
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command line; returns the exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Command command;
    StoreChoice storeChoice;
    try {
      ArgCursor cursor = new ArgCursor(args);
      storeChoice = storeOptions(cursor);
      if (!cursor.hasNext()) {
        throw new UsageException("missing command (init, push, list, show, delete or sync-templates)");
      }
      command = command(cursor);
    } catch (HelpRequested e) {
      out.print(USAGE);
      return 0;
    } catch (UsageException | InvalidInputException e) {
      // InvalidInputException: a scope, name or data key the store refuses; its message names the field.
      return badUsage(e, err);
    }
    try (StoreChoice.OpenedStore opened = command.open(storeChoice, out, err)) {
      return command.run(opened, out, err);
    } catch (UsageException e) {
      // Only known once the clients exist: a Cloud KMS key name the client library refuses; or init on gs://.
      return badUsage(e, err);
    } catch (SecretStoreException | KubernetesClientException | TemplateDeletionRefusedException e) {
      err.println("tenantry-secrets: " + e.getMessage() + cause(e));
      return 1;
    } catch (RuntimeException e) {
      // The cloud clients throw their own unchecked exceptions (no credentials, bucket missing...).
      err.println("tenantry-secrets: " + e + cause(e));
      return 1;
    }
  }

  private static int badUsage(RuntimeException e, PrintStream err) {
    err.println("tenantry-secrets: " + e.getMessage());
    err.println("Run 'tenantry-secrets --help' for usage.");
    return 2;
  }

  /** The global options, up to the command word. */
  private static StoreChoice storeOptions(ArgCursor args) {
    String store = null;
    String keyset = null;
    String kmsKey = null;
    String gcsEndpoint = null;
    String kmsEndpoint = null;
    while (args.hasNext() && args.nextIsOption()) {
      String option = args.nextOption();
      switch (option) {
        case "--store" -> store = ArgCursor.once(option, store, args.optionValue());
        case "--keyset" -> keyset = ArgCursor.once(option, keyset, args.optionValue());
        case "--kms-key" -> kmsKey = ArgCursor.once(option, kmsKey, args.optionValue());
        case "--gcs-endpoint" -> gcsEndpoint = ArgCursor.once(option, gcsEndpoint, args.optionValue());
        case "--kms-endpoint" -> kmsEndpoint = ArgCursor.once(option, kmsEndpoint, args.optionValue());
        default -> throw args.unknownOption(null);
      }
    }
    return StoreChoice.of(store, keyset, kmsKey, gcsEndpoint, kmsEndpoint, home());
  }

  private static Command command(ArgCursor args) {
    String name = args.nextPositional();
    return switch (name) {
      case InitCommand.NAME -> InitCommand.parse(args);
      case PushCommand.NAME -> PushCommand.parse(args);
      case ListCommand.NAME -> ListCommand.parse(args);
      case ShowCommand.NAME -> ShowCommand.parse(args);
      case DeleteCommand.NAME -> DeleteCommand.parse(args);
      case SyncTemplatesCommand.NAME -> SyncTemplatesCommand.parse(args);
      default -> throw new UsageException("unknown command \"" + name
          + "\" (expected init, push, list, show, delete or sync-templates)");
    };
  }

  private static Path home() {
    String home = System.getenv("HOME");
    return Path.of(home == null || home.isEmpty() ? System.getProperty("user.home") : home);
  }

  /** The innermost cause, when it says more than the message already does. */
  private static String cause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root == e || root.getMessage() == null || String.valueOf(e.getMessage()).contains(root.getMessage())) {
      return "";
    }
    return System.lineSeparator() + "  caused by: " + root;
  }
}
