package dev.trainyard.controller.forge;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON for forge bodies on Jackson (the only forge class that imports it): objects written with
 * sorted keys, answers read as maps and lists.
 */
final class Json {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private Json() {}

  static String write(Map<String, ?> object) {
    try {
      return MAPPER.writeValueAsString(new TreeMap<>(object));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  /** {@code text} parsed: a Map, a List, a String, a Number, a Boolean or null. */
  static Object read(String text) throws ForgeException {
    try {
      return MAPPER.readValue(text, Object.class);
    } catch (JsonProcessingException e) {
      throw new ForgeException(
          ForgeException.Kind.REJECTED, 200, "the forge answered with invalid JSON");
    }
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> objects(Object value) {
    return value instanceof List<?> list
        ? list.stream().filter(Map.class::isInstance).map(m -> (Map<String, Object>) m).toList()
        : List.of();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> object(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  static String string(Map<String, Object> object, String key) {
    Object v = object.get(key);
    return v == null ? "" : v.toString();
  }
}
