package io.tenantry.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class EgressRuleTest {

  @Test
  void blocksContainTheirSmallerBlocksOfTheSameFamilyOnly() {
    assertThat(Cidr.parse("0.0.0.0/0").contains(Cidr.parse("169.254.169.254/32"))).isTrue();
    assertThat(Cidr.parse("169.254.0.0/16").contains(Cidr.parse("169.254.169.254/32"))).isTrue();
    assertThat(Cidr.parse("10.0.0.0/8").contains(Cidr.parse("169.254.169.254/32"))).isFalse();
    assertThat(Cidr.parse("169.254.169.254/32").contains(Cidr.parse("169.254.0.0/16"))).isFalse();
    assertThat(Cidr.parse("::/0").contains(Cidr.parse("fd00:ec2::254/128"))).isTrue();
    assertThat(Cidr.parse("::/0").contains(Cidr.parse("10.0.0.0/8"))).isFalse();
  }

  @Test
  void malformedBlocksSayWhatIsWrong() {
    assertThatThrownBy(() -> Cidr.parse("10.0.0.0")).hasMessage("'10.0.0.0' is not a CIDR (address/prefix)");
    assertThatThrownBy(() -> Cidr.parse("example.com/24")).hasMessage("'example.com/24' is not a CIDR (address/prefix)");
    assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).hasMessage("'10.0.0.0/33': the prefix must be between 0 and 32");
    assertThatThrownBy(() -> Cidr.parse("10.0.0.1/8")).hasMessage("'10.0.0.1/8' has bits set after its prefix");
  }

  @Test
  void theMetadataAddressIsLeftOutOfEveryBlockHoldingIt() {
    assertThat(new EgressRule("0.0.0.0/0", List.of("10.0.0.0/8"), null).exceptWithMetadata())
        .containsExactly("10.0.0.0/8", "169.254.169.254/32");
    assertThat(new EgressRule("::/0", List.of(), null).exceptWithMetadata()).containsExactly("fd00:ec2::254/128");
    // Already left out by a larger except, or not in the block at all: nothing added.
    assertThat(new EgressRule("0.0.0.0/0", List.of("169.254.0.0/16"), null).exceptWithMetadata()).containsExactly("169.254.0.0/16");
    assertThat(new EgressRule("203.0.113.0/24", List.of(), List.of(443)).exceptWithMetadata()).isEmpty();
  }

  @Test
  void aRuleThatWouldReachTheMetadataAddressOrIsMalformedIsRefusedByField() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        plans:
          standard:
            egress:
              - {cidr: 169.254.169.254/32}
              - {cidr: 10.0.0.0/8, except: [192.168.0.0/16, 10.0.0.0/8, nonsense], ports: [0]}
              - {cidr: 10.0.0.0}
        """))
        .hasMessage("invalid operator configuration: plans.standard.egress[0].cidr: 169.254.169.254/32 is the cloud metadata"
            + " address, which tenants never reach; plans.standard.egress[1].except[0]: 192.168.0.0/16 must be a smaller block"
            + " inside 10.0.0.0/8; plans.standard.egress[1].except[1]: 10.0.0.0/8 must be a smaller block inside 10.0.0.0/8;"
            + " plans.standard.egress[1].except[2]: 'nonsense' is not a CIDR (address/prefix); plans.standard.egress[1].ports[0]:"
            + " must be a port between 1 and 65535; plans.standard.egress[2].cidr: '10.0.0.0' is not a CIDR (address/prefix)");
  }
}
