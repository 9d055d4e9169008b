package dev.trainyard.gitops.integration;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.jse.JseBaseLib;

/**
 * Runs an Argo CD resource health script the way Argo CD does, on LuaJ instead of gopher-lua.
 *
 * <p>Mirrored from argo-cd {@code util/lua/lua.go} ({@code runLua}, {@code ExecuteHealthLua},
 * {@code decodeValue}): the live object becomes the global {@code obj} (maps become tables, arrays
 * 1-based tables, numbers Lua numbers, JSON null nil); only the base, package and table libraries
 * are opened (a script from {@code argocd-cm} gets no {@code string} library unless {@code
 * useOpenLibs} is set; the safe {@code os} subset is left out, our script does not use it); the
 * script's return value must be a table whose {@code status} is one of Argo CD's health codes, else
 * the result is {@code Unknown} with "Lua returned an invalid health status".
 *
 * <pre>{@code HealthResult r = ArgoHealthLua.run(script, jobSet); // r.status() == "Suspended"}
 * </pre>
 */
final class ArgoHealthLua {
  /** gitops-engine pkg/health: the codes Argo CD accepts from a health script. */
  static final Set<String> HEALTH_CODES =
      Set.of("Unknown", "Progressing", "Suspended", "Healthy", "Degraded", "Missing");

  /** Argo CD's health status: {@code status} is a health code, {@code message} may be empty. */
  record HealthResult(String status, String message) {}

  private ArgoHealthLua() {}

  /**
   * Runs {@code script} with {@code object} as {@code obj}.
   *
   * @throws IllegalStateException when the script does not return a table (Argo CD: "expect table
   *     output from Lua script") or raises a Lua error (for example by calling a library Argo CD
   *     does not open)
   */
  static HealthResult run(String script, JsonNode object) {
    Globals globals = sandbox();
    globals.set("obj", toLua(object));
    LuaValue result;
    try {
      result = globals.load(script, "health.lua").call();
    } catch (LuaError e) {
      throw new IllegalStateException("Lua error: " + e.getMessage(), e);
    }
    if (!result.istable()) {
      throw new IllegalStateException(
          "expect table output from Lua script, not " + result.typename());
    }
    String status = result.get("status").optjstring("");
    String message = result.get("message").optjstring("");
    if (!HEALTH_CODES.contains(status)) {
      return new HealthResult("Unknown", "Lua returned an invalid health status");
    }
    return new HealthResult(status, message);
  }

  private static Globals sandbox() {
    Globals globals = new Globals();
    globals.load(new JseBaseLib());
    globals.load(new PackageLib());
    globals.load(new TableLib());
    LoadState.install(globals);
    LuaC.install(globals);
    return globals;
  }

  /** argo-cd decodeValue: objects to hash tables, arrays appended from index 1, null to nil. */
  static LuaValue toLua(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return LuaValue.NIL;
    }
    if (node.isObject()) {
      LuaTable table = new LuaTable();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        table.rawset(field.getKey(), toLua(field.getValue()));
      }
      return table;
    }
    if (node.isArray()) {
      LuaTable table = new LuaTable();
      for (int i = 0; i < node.size(); i++) {
        table.rawset(i + 1, toLua(node.get(i)));
      }
      return table;
    }
    if (node.isBoolean()) {
      return LuaValue.valueOf(node.booleanValue());
    }
    if (node.isNumber()) {
      return LuaValue.valueOf(node.doubleValue());
    }
    return LuaValue.valueOf(node.asText());
  }
}
