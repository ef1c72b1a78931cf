package io.tenantry.deploy.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.AppSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class AppVersionPatchTest {

  @Test
  void replacesOnlyTheAppsVersionGuardedByItsNameAtThatIndex() {
    List<AppSpec> apps = List.of(new AppSpec("api", "r/api", "1.0.0", 1, 8080), new AppSpec("web", "r/web", "1.0.0", 1, 8080));
    assertThat(AppVersionPatch.of("/spec/apps", apps, "web", "2.0.0")).isEqualTo(
        "[{\"op\":\"test\",\"path\":\"/spec/apps/1/name\",\"value\":\"web\"},"
            + "{\"op\":\"replace\",\"path\":\"/spec/apps/1/version\",\"value\":\"2.0.0\"}]");
    assertThat(AppVersionPatch.of("/spec/template/apps", apps, "api", "3.1")).contains("/spec/template/apps/0/version");
    assertThat(AppVersionPatch.of("/spec/apps", apps, "worker", "2.0.0")).isNull();
  }
}
