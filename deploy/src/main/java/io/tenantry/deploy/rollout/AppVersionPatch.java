package io.tenantry.deploy.rollout;

import io.tenantry.api.v1alpha1.AppSpec;
import java.util.List;

/**
 * The race-free write of one app's version (a read-change-update would lose concurrent edits): a JSON
 * patch that replaces only {@code <apps>/<i>/version}, guarded by a {@code test} that the entry
 * at index i is still the app. The API server applies it atomically to the object as it is then,
 * so a concurrent change to any other field (another app, the plan, labels, even this app's
 * replicas) is kept; if the list changed under us (the test fails), the caller reads again and
 * recomputes the index.
 *
 * <p>Why not server-side apply: {@code spec.apps} has no {@code x-kubernetes-list-type: map} in
 * the generated CRD (crd-generator 7.5.2 has no annotation for it), so an applied configuration
 * would own, and replace, the whole list. Why not a resourceVersion guard: the operator writes
 * the status (which bumps resourceVersion) continuously during a rollout, so such a guard would
 * conflict for no reason, and would protect fields this write never touches.
 */
public final class AppVersionPatch {

  private AppVersionPatch() {
  }

  /**
   * The patch for {@code apps} as last read, at {@code listPath} ({@code /spec/apps} for a Tenant,
   * {@code /spec/template/apps} for a SparePool); null when the app is not in the list.
   */
  public static String of(String listPath, List<AppSpec> apps, String app, String version) {
    for (int i = 0; i < apps.size(); i++) {
      if (app.equals(apps.get(i).getName())) {
        return "[{\"op\":\"test\",\"path\":\"" + listPath + "/" + i + "/name\",\"value\":\"" + app + "\"},"
            + "{\"op\":\"replace\",\"path\":\"" + listPath + "/" + i + "/version\",\"value\":\"" + version + "\"}]";
      }
    }
    return null;
  }
}
