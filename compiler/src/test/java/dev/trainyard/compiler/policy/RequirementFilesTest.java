package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Reading the repository's dependency files: {@link Requirement}, {@link RequirementsFile}, {@link
 * PyprojectFile}, {@link RuntimePackages}.
 */
class RequirementFilesTest {
  private static final SourceLocation AT = new SourceLocation("r.txt", 1, 1);

  private static String read(String written) {
    return Requirement.parse(written, AT)
        .map(r -> r.name() + "|" + r.specifiers() + "|" + r.text())
        .orElse("none");
  }

  @Test
  @DisplayName(
      "PEP 508 forms: extras, parentheses, blanks, options after it; none for urls, markers, paths, no limit")
  void requirements() {
    assertEquals("torch|<2.10|torch<2.10", read("torch<2.10"));
    assertEquals("torch|>=2.1,<3|torch[cuda] (>=2.1,<3)", read("torch[cuda] (>=2.1,<3)"));
    assertEquals("torch|== 2.1.*|torch == 2.1.*", read(" torch == 2.1.* "));
    assertEquals("torch|==2.1|torch==2.1", read("torch==2.1 --hash=sha256:abc"));
    assertEquals("Py_Torch.x|==1|Py_Torch.x==1", read("Py_Torch.x==1"));
    for (String none :
        List.of(
            "torch",
            "torch @ https://x/t.whl",
            "torch<2; python_version<'3.11'",
            "./local",
            "https://x/y",
            "git+https://x/y",
            "torch<<2",
            "-e .",
            "")) {
      assertEquals("none", read(none), none);
    }
  }

  @Test
  @DisplayName(
      "requirements files: comments, continuations, -r includes relative to the file, each file once, at most 4 deep")
  void files() {
    Map<String, String> files =
        Map.of(
            "requirements.txt",
                "# c\r\nnumpy>=1  # x\n\n  torch\\\n<2.10\n-r sub/a.txt\n--requirement=b.txt\n-c constraints.txt\n-e .\n",
            "sub/a.txt", "-r ../requirements.txt\n-rc.txt\nx==1#not a comment\ny==2 #comment\n",
            "sub/c.txt", "-r d.txt\nc==1\n",
            "sub/d.txt", "-r e.txt\nd==1\n",
            "sub/e.txt", "e==1\n",
            "b.txt", "b==1\n",
            "constraints.txt", "z==1\n");
    RunScripts scripts = p -> Optional.ofNullable(files.get(p));
    List<String> found =
        RequirementsFile.read(scripts, "./requirements.txt", "jobs/").stream()
            .map(r -> r.at() + " " + r.text())
            .toList();
    assertEquals(
        List.of(
            "jobs/requirements.txt:2:1 numpy>=1",
            "jobs/requirements.txt:4:3 torch<2.10",
            "jobs/sub/d.txt:2:1 d==1",
            "jobs/sub/c.txt:2:1 c==1",
            "jobs/sub/a.txt:4:1 y==2",
            "jobs/b.txt:1:1 b==1"),
        found);
    assertEquals(List.of(), RequirementsFile.read(p -> Optional.empty(), "requirements.txt", ""));
  }

  @Test
  @DisplayName(
      "pyproject.toml: [project] dependencies over lines and requires-python, with the column inside the quotes")
  void pyproject() {
    PyprojectFile p =
        PyprojectFile.scan(
            "pyproject.toml",
            "[build-system]\nrequires = [\"setuptools<60\"]\n[project]\nname = 'x'\nrequires-python = '>=3.12'  # new\n"
                + "dependencies = [ \"a==1\", 'b<2', # c \"no==1\"\n  \"c>3\",\n]\n[[project.x]]\ndependencies = [\"d==1\"]\n");
    assertEquals(">=3.12", p.requiresPython().orElseThrow().value());
    assertEquals("pyproject.toml:5:20", p.requiresPython().orElseThrow().at().toString());
    assertEquals(
        List.of("a==1@pyproject.toml:6:19", "b<2@pyproject.toml:6:27", "c>3@pyproject.toml:7:4"),
        p.dependencies().stream().map(t -> t.value() + "@" + t.at()).toList());
    PyprojectFile none =
        PyprojectFile.scan("p", "[tool.x]\ndependencies = [\"a==1\"]\nrequires-python = \"3\"\n");
    assertEquals(Optional.empty(), none.requiresPython());
    assertEquals(List.of(), none.dependencies());
    assertEquals(
        List.of(),
        PyprojectFile.scan("p", "[project]\ndependencies = [\n\"a==1\"").dependencies().stream()
            .filter(t -> !t.value().equals("a==1"))
            .toList());
  }
}
