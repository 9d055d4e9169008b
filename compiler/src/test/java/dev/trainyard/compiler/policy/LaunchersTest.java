package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which spellings of a launcher {@link Launchers} finds in a run line, and which words it takes as
 * first and last.
 */
class LaunchersTest {
  private static String found(Optional<Launchers.Launcher> l, RunTokens run) {
    return l.map(x -> x.first().text() + "|" + x.last().text() + "|" + x.text(run)).orElse("none");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '#',
      value = {
        "accelerate launch train.py # accelerate|launch|accelerate launch",
        "/opt/venv/bin/accelerate launch train.py # /opt/venv/bin/accelerate|launch|/opt/venv/bin/accelerate launch",
        "python -m accelerate.commands.launch train.py # python|accelerate.commands.launch|python -m accelerate.commands.launch",
        "python3.11 -u -W ignore -X dev -m accelerate.commands.launch t.py # python3.11|accelerate.commands.launch|python3.11 -u -W ignore -X dev -m accelerate.commands.launch",
        "cd src && /usr/bin/python3 -m accelerate.commands.launch t.py # /usr/bin/python3|accelerate.commands.launch|/usr/bin/python3 -m accelerate.commands.launch",
        "python -m other # none",
        "python -c 'import x' -m accelerate.commands.launch # none",
        "python script.py -m accelerate.commands.launch # none",
        "python -m # none",
        "python -u; -m accelerate.commands.launch # none",
        "python -m; accelerate.commands.launch t.py # none",
        "python -c -m accelerate.commands.launch # none",
        "accelerate; launch train.py # none",
        "echo accelerate.commands.launch # none",
        "python -m torch.distributed.run t.py # none",
      })
  @DisplayName(
      "accelerate: `accelerate launch` or python (any version or path, its own options first) -m accelerate.commands.launch, within one simple command")
  void accelerate(String run, String expected) {
    RunTokens t = RunTokens.of(run);
    assertEquals(expected, found(Launchers.accelerate(t), t));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '#',
      value = {
        "python -m torch.distributed.run t.py # python|torch.distributed.run|python -m torch.distributed.run",
        "python3 -m torch.distributed.launch --use-env t.py # python3|torch.distributed.launch|python3 -m torch.distributed.launch",
        "torchrun t.py # none",
        "python -m accelerate.commands.launch t.py # none",
        "python t.py && python -m torch.distributed.run t.py # python|torch.distributed.run|python -m torch.distributed.run",
      })
  @DisplayName(
      "torchrun's modules: torch.distributed.run and the deprecated torch.distributed.launch, in any simple command of the line")
  void torchModule(String run, String expected) {
    RunTokens t = RunTokens.of(run);
    assertEquals(expected, found(Launchers.torchModule(t), t));
    if (!expected.equals("none")) {
      assertEquals(
          t.indexOf(Launchers.torchModule(t).orElseThrow().first()) + 2,
          t.indexOf(Launchers.torchModule(t).orElseThrow().last()));
    }
    assertEquals(
        List.of("torch.distributed.run", "torch.distributed.launch"), Launchers.TORCHRUN_MODULES);
  }
}
