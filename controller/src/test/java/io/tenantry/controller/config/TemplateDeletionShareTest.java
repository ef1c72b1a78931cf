package io.tenantry.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code secretStore.maxTemplateDeletionShare}: the template refresh's guard against mass deletion. */
class TemplateDeletionShareTest {

  @Test
  void halfByDefaultAndSettable() {
    assertThat(OperatorConfig.defaults().secretStore().maxTemplateDeletionShare()).isEqualTo(0.5);
    OperatorConfig config = OperatorConfig.parse("secretStore: {maxTemplateDeletionShare: 0.2}");
    assertThat(config.secretStore().maxTemplateDeletionShare()).isEqualTo(0.2);
    assertThat(config.secretStore().templateSyncSeconds()).as("the rest of the section keeps its defaults").isEqualTo(60);
  }

  @Test
  void aShareOutsideZeroToOneIsRefusedByName() {
    for (String share : new String[] {"-0.1", "1.5"}) {
      assertThatThrownBy(() -> OperatorConfig.parse("secretStore: {maxTemplateDeletionShare: " + share + "}"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("secretStore.maxTemplateDeletionShare: must be between 0 and 1");
    }
  }
}
