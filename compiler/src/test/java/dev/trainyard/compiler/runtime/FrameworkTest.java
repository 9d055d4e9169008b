package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.runtime.MpiSettings.MpiImplementation;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The framework and MPI implementation names as runtime.yaml spells them. */
class FrameworkTest {
  @Test
  @DisplayName(
      "frameworks are spelled in lower case; exactly mpi, deepspeed and mlx use MPI; an unknown name parses to nothing")
  void frameworks() {
    assertEquals(
        List.of("torch", "mpi", "deepspeed", "mlx", "jax", "plain"),
        Arrays.stream(Framework.values()).map(Framework::id).toList());
    assertEquals(
        List.of(Framework.MPI, Framework.DEEPSPEED, Framework.MLX),
        Arrays.stream(Framework.values()).filter(Framework::usesMpi).toList());
    for (Framework f : Framework.values()) {
      assertEquals(Optional.of(f), Framework.parse(f.id()));
    }
    assertEquals(Optional.empty(), Framework.parse("TORCH"));
  }

  @Test
  @DisplayName(
      "MPI implementations are spelled OpenMPI, Intel and MPICH; another spelling parses to nothing")
  void implementations() {
    assertEquals(
        List.of("OpenMPI", "Intel", "MPICH"),
        Arrays.stream(MpiImplementation.values()).map(MpiImplementation::id).toList());
    for (MpiImplementation i : MpiImplementation.values()) {
      assertEquals(Optional.of(i), MpiImplementation.parse(i.id()));
    }
    assertEquals(Optional.empty(), MpiImplementation.parse("openmpi"));
  }
}
