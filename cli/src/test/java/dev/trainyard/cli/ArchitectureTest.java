package dev.trainyard.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ARCHITECTURE.md's "who may import whom", checked on the main classes of every module (the CLI's
 * test class path holds them all). A rule here and a line in the document change together; a rule
 * the code still breaks is listed in the document as "should fix", never silently dropped.
 */
class ArchitectureTest {

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    // Trainyard's modules arrive as class folders (in the reactor) or as trainyard-*.jar (one
    // module alone); their test folders and test-jars are left out, and so is every other jar.
    main =
        new ClassFileImporter()
            .withImportOption(ArchitectureTest::trainyardMainCode)
            .importPackages("dev.trainyard");
  }

  private static boolean trainyardMainCode(Location location) {
    String where = location.toString();
    if (where.contains("/test-classes/") || where.contains("-tests.jar")) {
      return false;
    }
    return where.contains("/target/classes/") || where.matches(".*/trainyard-[a-z]+-[^/]*\\.jar.*");
  }

  @Test
  @DisplayName("every module's main classes were imported (a rule over no classes proves nothing)")
  void imported() {
    for (String module : List.of("compiler", "gitops", "controller", "cli")) {
      long n =
          main.stream()
              .filter(c -> c.getPackageName().startsWith("dev.trainyard." + module))
              .count();
      if (n < 10) {
        throw new AssertionError("only " + n + " classes of dev.trainyard." + module + " imported");
      }
    }
  }

  @Test
  @DisplayName(
      "the CLI reads the environment only through Invocation, so every command runs in-process with the one a caller gives")
  void environmentOnlyThroughInvocation() {
    noClasses()
        .that()
        .resideInAPackage("dev.trainyard.cli")
        .and()
        .doNotHaveSimpleName("Invocation")
        .and()
        // The resident server's client forwards its own process's environment to the server,
        // which runs the command in an Invocation made of it.
        .doNotHaveSimpleName("ServerClient")
        .should()
        .callMethod(System.class, "getenv")
        .orShould()
        .callMethod(System.class, "getenv", String.class)
        .because(
            "ARCHITECTURE.md: commands take the working directory and environment from Invocation")
        .check(main);
  }

  @Test
  @DisplayName("no package cycles anywhere in Trainyard's main code")
  void noPackageCycles() {
    slices().matching("dev.trainyard.(**)").should().beFreeOfCycles().check(main);
  }

  static Stream<Arguments> moduleRules() {
    return Stream.of(
        Arguments.of("dev.trainyard.compiler..", List.of("gitops", "controller", "cli")),
        Arguments.of("dev.trainyard.gitops..", List.of("controller", "cli")),
        Arguments.of("dev.trainyard.controller..", List.of("cli")));
  }

  @ParameterizedTest(name = "{0} imports none of {1}")
  @MethodSource("moduleRules")
  @DisplayName("modules depend downwards only: cli -> publish, controller -> compiler")
  void modules(String module, List<String> forbidden) {
    noClasses()
        .that()
        .resideInAPackage(module)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            forbidden.stream().map(m -> "dev.trainyard." + m + "..").toArray(String[]::new))
        .check(main);
  }

  @Test
  @DisplayName(
      "controller.state is pure: only the JDK, controller.text and the compiler's annotation keys")
  void statePure() {
    classes()
        .that()
        .resideInAPackage("dev.trainyard.controller.state..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.trainyard.controller.state..",
            "dev.trainyard.controller.text..",
            "dev.trainyard.compiler.render..")
        .check(main);
  }

  @Test
  @DisplayName("controller.forge knows HTTP, JSON and the forges, nothing of runs or Kubernetes")
  void forgeKnowsNoRuns() {
    classes()
        .that()
        .resideInAPackage("dev.trainyard.controller.forge..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "javax.net..",
            "com.fasterxml.jackson..",
            "dev.trainyard.controller.forge..",
            "dev.trainyard.controller.text..")
        .check(main);
  }

  static Stream<Arguments> libraryOwners() {
    return Stream.of(
        Arguments.of("com.networknt..", List.of("compiler.schema.NetworkntSchemaValidator")),
        Arguments.of("io.pebbletemplates..", List.of("compiler.render.TemplateRenderer")),
        Arguments.of("org.apache.sshd..", List.of("compiler.secrets.SshKeyGenerator")),
        Arguments.of(
            "com.exceptionfactory.jagged..",
            List.of("compiler.secrets.AgeFileEncryptor", "compiler.secrets.AgeRecipient")),
        Arguments.of("java.net.http..", List.of("controller.forge.JdkTransport")),
        Arguments.of(
            "org.yaml.snakeyaml..",
            List.of(
                "compiler.source.YamlDocumentLoader",
                "gitops.leaks.ManifestLines",
                // its resolver types plain scalars as Jackson's YAMLParser does
                "gitops.preview.BlockYaml")),
        Arguments.of("io.prometheus..", List.of("controller.ControllerMetrics")),
        Arguments.of(
            "com.fasterxml.jackson.dataformat.yaml..",
            List.of(
                "compiler.source.YamlDocumentLoader",
                "compiler.manifest.YamlWriter",
                // should fix: builds a YAML mapper of its own instead of the loader's.
                "gitops.preview.YamlTrees")),
        Arguments.of(
            "org.eclipse.jgit..",
            List.of(
                "compiler.provenance.GitSourceInspector",
                "gitops.GitCredentials",
                "gitops.GitOpsRepository",
                "gitops.GitTreeSnapshot",
                "gitops.MemoryObjects",
                "gitops.SourceAuthor",
                "gitops.TreeSurgery")),
        Arguments.of("picocli..", List.of("cli.*", "controller.ControllerMain")),
        Arguments.of("io.fabric8..", List.of("compiler.cluster.*", "controller.*")));
  }

  @ParameterizedTest(name = "{0} only in {1}")
  @MethodSource("libraryOwners")
  @DisplayName("each third-party library is imported only behind its owning classes")
  void libraryOwners(String library, List<String> owners) {
    ArchRule rule =
        noClasses()
            .that(notOwnedBy(owners))
            .should()
            .dependOnClassesThat()
            .resideInAPackage(library)
            .because("ARCHITECTURE.md names " + owners + " as its only importers");
    rule.check(main);
  }

  /**
   * Classes outside {@code owners}: "x.Y" is the class Y and its nested classes, "x.*" every class
   * directly in package x (not its sub-packages).
   */
  private static DescribedPredicate<JavaClass> notOwnedBy(List<String> owners) {
    return DescribedPredicate.describe(
        "are not " + owners,
        c -> {
          String name = c.getName().substring("dev.trainyard.".length());
          for (String owner : owners) {
            if (owner.endsWith(".*")) {
              if (c.getPackageName()
                  .equals("dev.trainyard." + owner.substring(0, owner.length() - 2))) {
                return false;
              }
            } else if (name.equals(owner) || name.startsWith(owner + "$")) {
              return false;
            }
          }
          return true;
        });
  }
}
