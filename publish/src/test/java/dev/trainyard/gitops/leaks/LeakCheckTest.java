package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a key may sit (a plain Secret where platform.yaml allows them) and where not; real kubeseal
 * and sops output.
 */
class LeakCheckTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  static final PlantedKeys.Key KEY = PlantedKeys.all().get("openssh");
  @TempDir Path temp;

  static Platform platform(Optional<Path> file) {
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
        .load(file, "platform.yaml")
        .value()
        .orElseThrow();
  }

  static String secret(String namespace, String privateKey) {
    return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: run-ssh\n  namespace: "
        + namespace
        + "\ntype: kubernetes.io/ssh-auth\n"
        + "data:\n  ssh-privatekey: "
        + KeyScannerTest.b64(privateKey)
        + "\n";
  }

  @Test
  @DisplayName(
      "sealed-secrets policy: a plain Secret with a key is E809 at its file and line, and the message holds no piece of the key")
  void sealedPolicyRefusesPlainSecret() {
    LeakCheck.Report report =
        new LeakCheck(platform(Optional.of(ROOT.resolve("examples/platform.yaml"))))
            .checkText(
                new TreeMap<>(
                    Map.of("clusters/local/ml/run/secret-run-ssh.yaml", secret("ml", KEY.pem()))));
    assertTrue(report.leaked());
    Diagnostic d = report.diagnostics().get(0);
    assertEquals(DiagnosticCode.PRIVATE_KEY_IN_TREE, d.code());
    assertEquals("clusters/local/ml/run/secret-run-ssh.yaml:8", d.location().toString());
    WORDING.approve(d.message());
    assertNoFragment(d.message() + d.hint(), KEY);
  }

  @Test
  @DisplayName(
      "plain allowed (embedded default): a Secret in local/default passes, also as one document of several; a ConfigMap there, or a Secret in another namespace, does not")
  void plainAllowedOnlyInSecretsOfAllowedNamespaces() {
    SortedMap<String, String> files = new TreeMap<>();
    files.put("clusters/local/default/run/secret-run-ssh.yaml", secret("default", KEY.pem()));
    files.put(
        "clusters/local/default/run/configmap-run.yaml",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  k: |\n"
            + KeyScannerTest.indent(KEY.pem(), "    "));
    files.put("clusters/local/team-x/run/secret-run-ssh.yaml", secret("team-x", KEY.pem()));
    files.put("clusters/other/default/run/secret-run-ssh.yaml", secret("default", KEY.pem()));
    files.put(
        "clusters/local/default/run/two.yaml",
        secret("default", KEY.pem())
            + "---\n"
            + secret("default", KEY.pem()).replace("kind: Secret", "kind: ConfigMap"));
    LeakCheck.Report report = new LeakCheck(platform(Optional.empty())).checkText(files);
    assertEquals(2, report.allowed());
    assertEquals(5, report.files());
    assertEquals(
        List.of(
            "clusters/local/default/run/configmap-run.yaml:5",
            "clusters/local/default/run/two.yaml:17",
            "clusters/local/team-x/run/secret-run-ssh.yaml:8",
            "clusters/other/default/run/secret-run-ssh.yaml:8"),
        report.diagnostics().stream().map(x -> x.location().toString()).toList());
    WORDING.approve(report.diagnostics().get(0).message());
    WORDING.approve(report.diagnostics().get(1).message());
  }

  @Test
  @DisplayName(
      "plain allowed: in a Secret only data and stringData may hold a key; an annotation or a comment of that Secret is E809 at its line")
  void onlyTheSecretsDataMayHoldAKey() {
    String annotated =
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: r\n  annotations:\n    note: |\n"
            + KeyScannerTest.indent(KEY.pem(), "      ")
            + "type: Opaque\n";
    String commented =
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: r\ndata:\n"
            + KeyScannerTest.indent(KEY.pem(), "  # ")
            + "  k: dg==\n";
    SortedMap<String, String> files =
        new TreeMap<>(
            Map.of(
                "clusters/local/default/r/secret-a.yaml",
                annotated,
                "clusters/local/default/r/secret-c.yaml",
                commented,
                "clusters/local/default/r/secret-ok.yaml",
                secret("default", KEY.pem())));
    LeakCheck.Report report = new LeakCheck(platform(Optional.empty())).checkText(files);
    assertEquals(
        List.of(
            "clusters/local/default/r/secret-a.yaml:7", "clusters/local/default/r/secret-c.yaml:6"),
        report.diagnostics().stream().map(x -> x.location().toString()).toList());
    assertEquals(1, report.allowed());
  }

  @Test
  @DisplayName(
      "real kubeseal and sops output of a Secret holding a private key is not flagged; the Secret they encrypt is")
  void sealedAndSopsOutputPass() throws Exception {
    String openssl = RealTools.system("openssl").toString();
    String kubeseal = RealTools.built("kubeseal").toString();
    String sops = RealTools.built("sops").toString();
    String ageKeygen = RealTools.built("age-keygen").toString();
    RealTools.run(
        temp,
        "",
        openssl,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
        "-days",
        "2",
        "-subj",
        "/CN=sealed-secret/O=sealed-secret");
    String plain = secret("ml", KEY.pem());
    String sealed =
        RealTools.run(
            temp, plain, kubeseal, "--cert", "cert.pem", "--format", "yaml", "--scope", "strict");
    RealTools.run(temp, "", ageKeygen, "-o", "age.txt");
    String recipient =
        Files.readString(temp.resolve("age.txt"))
            .lines()
            .filter(l -> l.startsWith("# public key: "))
            .findFirst()
            .orElseThrow()
            .substring(14);
    Files.writeString(temp.resolve("secret.yaml"), plain);
    String encrypted =
        RealTools.run(
            temp,
            "",
            sops,
            "--encrypt",
            "--age",
            recipient,
            "--encrypted-regex",
            "^(data|stringData)$",
            "secret.yaml");
    assertTrue(
        sealed.contains("kind: SealedSecret") && encrypted.contains("ENC[AES256_GCM"),
        sealed + encrypted);
    SortedMap<String, String> files =
        new TreeMap<>(
            Map.of(
                "clusters/local/ml/r/sealedsecret.yaml",
                sealed,
                "clusters/local/ml/r/secret.yaml",
                encrypted,
                "platform.yaml",
                Files.readString(ROOT.resolve("examples/platform.yaml"))));
    LeakCheck check = new LeakCheck(platform(Optional.of(ROOT.resolve("examples/platform.yaml"))));
    assertEquals(List.of(), check.checkText(files).diagnostics());
    files.put("clusters/local/ml/r/plain.yaml", plain);
    assertEquals(1, check.checkText(files).diagnostics().size());
  }

  @Test
  @DisplayName(
      "Trainyard's own sealed and SOPS golden trees hold no key; its plain Secret under the embedded default is allowed")
  void goldenTrees() throws Exception {
    for (String c : List.of("deepspeed-sealed-secrets", "mlx-sops-age")) {
      StageResult<LeakCheck.Report> r =
          LeakCheck.checkFolder(
              ROOT.resolve("golden").resolve(c).resolve("expected"),
              Optional.of(ROOT.resolve("golden").resolve(c).resolve("platform.yaml")));
      assertEquals(List.of(), r.value().orElseThrow().diagnostics(), c);
      assertEquals(0, r.value().orElseThrow().allowed(), c);
    }
    LeakCheck.Report plain =
        LeakCheck.checkFolder(ROOT.resolve("golden/deepspeed-one-node/expected"), Optional.empty())
            .value()
            .orElseThrow();
    assertEquals(List.of(), plain.diagnostics());
    assertEquals(1, plain.allowed());
  }

  @Test
  @DisplayName(
      "check of a folder: a symbolic link (to a file or a folder) is not followed and is listed, sorted; a key behind it is not read; a tree in memory lists none")
  void linksListed() throws Exception {
    Path tree = temp.resolve("linked");
    Path run = Files.createDirectories(tree.resolve("clusters/local/default/run"));
    Files.writeString(run.resolve("job.yaml"), "kind: ConfigMap\n");
    Path outside = Files.writeString(temp.resolve("outside.pem"), KEY.pem());
    Files.createSymbolicLink(run.resolve("z-key.pem"), outside);
    Files.createSymbolicLink(tree.resolve("clusters/a-run"), run);
    LeakCheck.Report r = LeakCheck.checkFolder(tree, Optional.empty()).value().orElseThrow();
    assertEquals(1, r.files());
    assertFalse(r.leaked());
    assertEquals(
        List.of("clusters/a-run", "clusters/local/default/run/z-key.pem"), r.skippedLinks());
    assertEquals(List.of(), new LeakCheck.Report(List.of(), 0, 0).skippedLinks());
  }

  @Test
  @DisplayName(
      "check of a folder named through a link (DIR itself a symbolic link): the folder it names is read, its key found")
  void linkedRoot() throws Exception {
    Path tree = temp.resolve("real");
    Path run = Files.createDirectories(tree.resolve("clusters/local/default/run"));
    Files.writeString(run.resolve("configmap.yaml"), "kind: ConfigMap\ndata:\n  k: |\n    x\n");
    Files.writeString(run.resolve("id_key"), KEY.pem());
    Path link = Files.createSymbolicLink(temp.resolve("link"), tree);
    LeakCheck.Report r = LeakCheck.checkFolder(link, Optional.empty()).value().orElseThrow();
    assertEquals(2, r.files());
    assertTrue(r.leaked(), r.diagnostics().toString());
    assertEquals(List.of(), r.skippedLinks());
    assertEquals(
        "clusters/local/default/run/id_key:1", r.diagnostics().get(0).location().toString());
  }

  @Test
  @DisplayName(
      "check of a folder: .git/ is skipped, DIR/platform.yaml decides, a missing folder is an IOException naming it")
  void folder() throws Exception {
    Path tree = temp.resolve("tree");
    Files.createDirectories(tree.resolve(".git/objects"));
    Files.writeString(tree.resolve(".git/objects/leak"), KEY.pem());
    Path run = Files.createDirectories(tree.resolve("clusters/local/default/run"));
    Files.writeString(run.resolve("secret.yaml"), secret("default", KEY.pem()));
    assertEquals(1, LeakCheck.checkFolder(tree, Optional.empty()).value().orElseThrow().allowed());
    Files.writeString(
        tree.resolve("platform.yaml"), Files.readString(ROOT.resolve("examples/platform.yaml")));
    LeakCheck.Report sealed = LeakCheck.checkFolder(tree, Optional.empty()).value().orElseThrow();
    assertEquals(2, sealed.files());
    assertTrue(sealed.leaked());
    IOException missing =
        Assertions.assertThrows(
            IOException.class, () -> LeakCheck.checkFolder(temp.resolve("nope"), Optional.empty()));
    assertTrue(missing.getMessage().endsWith("nope: no such folder"), missing.getMessage());
    Files.writeString(tree.resolve("platform.yaml"), "kind: Platform\nbogus: 1\n");
    assertFalse(LeakCheck.checkFolder(tree, Optional.empty()).diagnostics().isEmpty());
    assertTrue(LeakCheck.checkFolder(tree, Optional.empty()).failed());
  }

  @Test
  @DisplayName(
      "a Secret as an item of a kind: List is a Secret: its data is allowed where plain Secrets are, its annotation is E809 naming the item")
  void secretInAList() {
    String list =
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    a: b\n"
            + "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: run-ssh\n    annotations:\n      note: "
            + KeyScannerTest.b64(KEY.pem())
            + "\n"
            + "  type: Opaque\n  data:\n    ssh-privatekey: "
            + KeyScannerTest.b64(KEY.pem())
            + "\n  # "
            + KeyScannerTest.b64(KEY.pem())
            + "\n"
            + "- kind: ConfigMap\n  data:\n    k: "
            + KeyScannerTest.b64(KEY.pem())
            + "\n";
    LeakCheck.Report report =
        new LeakCheck(platform(Optional.empty()))
            .checkText(new TreeMap<>(Map.of("clusters/local/default/r/list.yaml", list)));
    assertEquals(1, report.allowed());
    assertEquals(
        List.of(
            "clusters/local/default/r/list.yaml:15",
            "clusters/local/default/r/list.yaml:19",
            "clusters/local/default/r/list.yaml:22"),
        report.diagnostics().stream().map(x -> x.location().toString()).toList());
    List<String> where =
        report.diagnostics().stream()
            .map(
                d ->
                    d.message()
                        .replaceAll(".*, in namespace default, in ", "")
                        .replaceAll(" \\(only.*", ""))
            .toList();
    assertEquals(
        List.of(
            "the metadata of a Secret (item 2 of a List)",
            "a comment or no field of a Secret (item 2 of a List)",
            "the data of a ConfigMap (item 3 of a List)"),
        where);
    LeakCheck.Report sealed =
        new LeakCheck(platform(Optional.of(ROOT.resolve("examples/platform.yaml"))))
            .checkText(new TreeMap<>(Map.of("clusters/local/ml/r/list.yaml", list)));
    assertEquals(4, sealed.diagnostics().size());
  }

  @Test
  @DisplayName(
      "a Secret file written as UTF-16 (with or without BOM) or UTF-32: its key is found; allowed where plain Secrets are, E809 elsewhere")
  void wideEncodings() {
    for (Charset cs :
        List.of(
            StandardCharsets.UTF_16,
            StandardCharsets.UTF_16LE,
            StandardCharsets.UTF_16BE,
            Charset.forName("UTF-32LE"),
            Charset.forName("UTF-32"))) {
      byte[] bytes = ("\uFEFF" + secret("default", KEY.pem())).getBytes(cs);
      byte[] unmarked = secret("default", KEY.pem()).getBytes(cs);
      for (byte[] b : List.of(bytes, unmarked)) {
        LeakCheck.Report allowed =
            new LeakCheck(platform(Optional.empty()))
                .check(new TreeMap<>(Map.of("clusters/local/default/r/secret.yaml", b)));
        assertEquals(List.of(), allowed.diagnostics(), cs.name());
        assertEquals(1, allowed.allowed(), cs.name());
        LeakCheck.Report refused =
            new LeakCheck(platform(Optional.of(ROOT.resolve("examples/platform.yaml"))))
                .check(new TreeMap<>(Map.of("clusters/local/ml/r/secret.yaml", b)));
        assertEquals(
            List.of("clusters/local/ml/r/secret.yaml:8"),
            refused.diagnostics().stream().map(x -> x.location().toString()).toList(),
            cs.name());
        WORDING.approve(refused.diagnostics().get(0).message());
      }
    }
  }

  @Test
  @DisplayName(
      "the messages say why: plain without allowPlain, or plain but the namespace not listed; outside clusters/ nothing is allowed")
  void whyNotAllowed() {
    String embedded = readResource("/trainyard/platform/default-platform.yaml");
    Platform noAllow =
        platform(
            Optional.of(
                write(
                    "platform-noallow.yaml",
                    embedded.replace("allowPlain: true", "allowPlain: false"))));
    LeakCheck.Report refused =
        new LeakCheck(noAllow)
            .checkText(
                new TreeMap<>(
                    Map.of("clusters/local/default/r/secret.yaml", secret("default", KEY.pem()))));
    assertTrue(refused.leaked());
    WORDING.approve(refused.diagnostics().get(0).message());
    LeakCheck plain = new LeakCheck(platform(Optional.empty()));
    for (String path :
        List.of(
            "clusters/local/nosuch/r/secret.yaml",
            "other/local/default/r/secret.yaml",
            "clusters/local/secret.yaml")) {
      LeakCheck.Report r =
          plain.checkText(new TreeMap<>(Map.of(path, secret("default", KEY.pem()))));
      assertEquals(
          List.of(path + ":8"),
          r.diagnostics().stream().map(x -> x.location().toString()).toList(),
          path);
      WORDING.approve(r.diagnostics().get(0).message());
    }
    LeakCheck.Report shallow =
        plain.checkText(
            new TreeMap<>(
                Map.of("clusters/local/default/secret.yaml", secret("default", KEY.pem()))));
    assertEquals(
        List.of(),
        shallow.diagnostics(),
        "a Secret file directly in the namespace folder is in that namespace");
    assertEquals(1, shallow.allowed());
    assertFalse(shallow.leaked());
    assertEquals(1, shallow.files());
  }

  @Test
  @DisplayName("diagnostics are sorted by file and line, and a file without a key costs nothing")
  void sortedDiagnostics() {
    SortedMap<String, byte[]> files = new TreeMap<>();
    files.put(
        "b.yaml",
        ("x: 1\nk: " + KeyScannerTest.b64(KEY.pem()) + "\n").getBytes(StandardCharsets.UTF_8));
    files.put(
        "a.yaml",
        (KEY.pem() + "k: " + KeyScannerTest.b64(KEY.pem()) + "\n")
            .getBytes(StandardCharsets.UTF_8));
    files.put("c.yaml", "nothing: here\n".getBytes(StandardCharsets.UTF_8));
    LeakCheck.Report r = new LeakCheck(platform(Optional.empty())).check(files);
    int pemLines = KEY.pem().split("\n").length;
    assertEquals(
        List.of("a.yaml:1", "a.yaml:" + (pemLines + 1), "b.yaml:2"),
        r.diagnostics().stream().map(x -> x.location().toString()).toList());
    assertEquals(3, r.files());
  }

  @Test
  @DisplayName(
      "plain allowed: a key on an annotation's quoted text that goes on at column 1 as `data: ...` is E809, not a Secret's data")
  void annotationTextThatLooksLikeData() {
    String sneaky =
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: r\n  annotations:\n    note: \"x\ndata: "
            + KeyScannerTest.b64(KEY.pem())
            + "\"\ntype: Opaque\n";
    LeakCheck.Report report =
        new LeakCheck(platform(Optional.empty()))
            .checkText(new TreeMap<>(Map.of("clusters/local/default/r/secret.yaml", sneaky)));
    assertEquals(
        List.of("clusters/local/default/r/secret.yaml:7"),
        report.diagnostics().stream().map(x -> x.location().toString()).toList());
    assertTrue(
        report.diagnostics().get(0).message().contains("in the metadata of a Secret"),
        report.diagnostics().get(0).message());
    assertEquals(0, report.allowed());
  }

  private static String readResource(String name) {
    try (InputStream in = Platform.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path write(String name, String text) {
    try {
      return Files.writeString(temp.resolve(name), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** No 16-character piece of the key's PEM, body or base64 is in {@code text}. */
  static void assertNoFragment(String text, PlantedKeys.Key key) {
    for (String form :
        List.of(
            key.pem().replaceAll("-----[^-]+-----", "").replace("\n", ""),
            KeyScannerTest.b64(key.pem()))) {
      for (int i = 0; i + 16 <= form.length(); i += 4) {
        assertFalse(text.contains(form.substring(i, i + 16)), "key fragment in: " + text);
      }
    }
    assertFalse(new String(key.body(), StandardCharsets.ISO_8859_1).isEmpty());
  }

  @Test
  @DisplayName(
      "inSecretData: the data lines of a Secret only (on to the text's end); line 0 and lines past the end are in no Secret")
  void inSecretDataBounds() {
    String text = "kind: Secret\ndata:\n  k: v\n";
    assertTrue(LeakCheck.inSecretData(text, 3));
    assertFalse(LeakCheck.inSecretData(text, 1));
    assertFalse(LeakCheck.inSecretData(text, 0));
    assertTrue(LeakCheck.inSecretData(text, 4), "the empty line after the last line break");
    assertFalse(LeakCheck.inSecretData(text, 5));
    assertFalse(LeakCheck.inSecretData(text, 99));
  }

  @Test
  @DisplayName(
      "diagnostics come sorted by file whatever order the map hands its files in, and each names why: allowPlain false, or the namespace not listed")
  void sortedWhateverTheMapOrder() {
    SortedMap<String, byte[]> files = new TreeMap<>(java.util.Comparator.reverseOrder());
    files.put(
        "clusters/local/nosuch/r/secret.yaml",
        secret("nosuch", KEY.pem()).getBytes(StandardCharsets.UTF_8));
    files.put("a.yaml", KEY.pem().getBytes(StandardCharsets.UTF_8));
    LeakCheck.Report r = new LeakCheck(platform(Optional.empty())).check(files);
    assertEquals(
        List.of("a.yaml:1", "clusters/local/nosuch/r/secret.yaml:8"),
        r.diagnostics().stream().map(x -> x.location().toString()).toList());
    assertTrue(
        r.diagnostics()
            .get(1)
            .message()
            .endsWith(
                "outside any namespace where platform.yaml allows plain Secrets (secrets.policy: plain)"),
        r.diagnostics().get(1).message());
    String embedded = readResource("/trainyard/platform/default-platform.yaml");
    Platform noAllow =
        platform(
            Optional.of(
                write(
                    "platform-noallow.yaml",
                    embedded.replace("allowPlain: true", "allowPlain: false"))));
    String refused =
        new LeakCheck(noAllow)
            .checkText(
                new TreeMap<>(
                    Map.of("clusters/local/default/r/secret.yaml", secret("default", KEY.pem()))))
            .diagnostics()
            .get(0)
            .message();
    assertTrue(
        refused.endsWith(
            "outside any namespace where platform.yaml allows plain Secrets (secrets.policy: plain, allowPlain: false)"),
        refused);
  }

  @Test
  @DisplayName(
      "a PEM in the raw bytes of a file marked UTF-16, on a line its decoded text does not have, is E809 at that byte line")
  void rawKeyBelowTheDecodedLines() {
    byte[] head = {(byte) 0xFF, (byte) 0xFE, 'A', '\n'};
    byte[] pem = KEY.pem().getBytes(StandardCharsets.US_ASCII);
    byte[] content = new byte[head.length + pem.length + (pem.length % 2)];
    System.arraycopy(head, 0, content, 0, head.length);
    System.arraycopy(pem, 0, content, head.length, pem.length);
    if (pem.length % 2 == 1) {
      content[content.length - 1] = ' ';
    }
    LeakCheck.Report r =
        new LeakCheck(platform(Optional.empty()))
            .check(new TreeMap<>(Map.of("clusters/local/default/r/keys.yaml", content)));
    assertEquals(
        List.of("clusters/local/default/r/keys.yaml:2"),
        r.diagnostics().stream().map(x -> x.location().toString()).toList());
    assertEquals(0, r.allowed());
  }

  @Test
  @DisplayName("check of a path that is a file, not a folder: an IOException saying so")
  void folderIsAFile() throws Exception {
    Path file = Files.writeString(temp.resolve("tree.yaml"), "kind: ConfigMap\n");
    IOException e =
        Assertions.assertThrows(
            IOException.class, () -> LeakCheck.checkFolder(file, Optional.empty()));
    assertEquals(file + ": not a folder", e.getMessage());
  }
}
