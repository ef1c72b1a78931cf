package io.tenantry.controller.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class OwnedFieldsTest {

  private static JsonNode json(String text) {
    return Serialization.unmarshal(text.replace('\'', '"'), JsonNode.class);
  }

  private static boolean covered(String desired, String actual) {
    return OwnedFields.covered(json(desired), json(actual));
  }

  @Test
  void fieldsTheOperatorDoesNotSetAreIgnored() {
    assertThat(covered("{'spec':{'replicas':2}}",
        "{'spec':{'replicas':2,'strategy':{'type':'RollingUpdate'}},'metadata':{'annotations':{'other':'x'}}}")).isTrue();
  }

  @Test
  void aChangedOrMissingOwnedFieldIsADifference() {
    assertThat(covered("{'spec':{'replicas':2}}", "{'spec':{'replicas':3}}")).isFalse();
    assertThat(covered("{'spec':{'replicas':2}}", "{'spec':{}}")).isFalse();
    assertThat(covered("{'metadata':{'labels':{'a':'1'}}}", "{'metadata':{'labels':{'a':'2'}}}")).isFalse();
  }

  @Test
  void listsCompareElementByElementAndByLength() {
    assertThat(covered("{'rules':[{'verbs':['get']}]}", "{'rules':[{'verbs':['get'],'extra':1}]}")).isTrue();
    assertThat(covered("{'rules':[{'verbs':['get']}]}", "{'rules':[{'verbs':['get']},{'verbs':['delete']}]}")).isFalse();
    assertThat(covered("{'rules':[{'verbs':['get','list']}]}", "{'rules':[{'verbs':['list','get']}]}")).isFalse();
  }

  @Test
  void emptyDesiredValuesMatchWhatTheServerOmits() {
    assertThat(covered("{'spec':{'podSelector':{},'ingress':[],'value':'','flag':false,'n':0}}", "{'spec':{}}")).isTrue();
    assertThat(covered("{'spec':{'flag':false}}", "{'spec':{'flag':true}}")).isFalse();
  }

  @Test
  void numbersCompareByValue() {
    assertThat(OwnedFields.covered(json("{'port':8080}"), Serialization.jsonMapper().createObjectNode().put("port", 8080L)))
        .isTrue();
  }

  @Test
  void resourceListValuesCompareAsQuantities() {
    assertThat(covered("{'requests':{'cpu':'1000m','memory':'1Gi'}}", "{'requests':{'cpu':'1','memory':'1024Mi'}}")).isTrue();
    assertThat(covered("{'hard':{'pods':'50'}}", "{'hard':{'pods':'51'}}")).isFalse();
    // Outside resource lists, "1.10" and "1.1" are different strings (versions, env values).
    assertThat(covered("{'env':[{'value':'1.10'}]}", "{'env':[{'value':'1.1'}]}")).isFalse();
  }
}
