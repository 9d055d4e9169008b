package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The resident server's wire format: round trips, the limits a request is held to, frames. */
class ServerProtocolTest {
  private static DataInputStream in(ByteArrayOutputStream bytes) {
    return new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
  }

  @Test
  @DisplayName(
      "a request round-trips: folder, environment (sorted, '=' and UTF-8 kept), arguments in order, empty ones too")
  void roundTrip() throws IOException {
    ServerProtocol.Request request =
        new ServerProtocol.Request(
            "/tmp/ä b",
            Map.of("B", "x=y", "A", "", "PATH", "/bin"),
            List.of("compile", "", "train.yaml", "--out", "é"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ServerProtocol.writeRequest(new DataOutputStream(bytes), request);
    ServerProtocol.Request read = ServerProtocol.readRequest(in(bytes));
    assertEquals(request, read);
    assertEquals(
        ServerProtocol.folderKey("/tmp/ä b"),
        read.workingDirectoryKey(),
        "the key as this process sees the folder");
    assertTrue(read.workingDirectoryKey().endsWith(" "), "a folder that is not there: no inode");
    assertEquals(List.of("A", "B", "PATH"), new ArrayList<>(read.environment().keySet()));
  }

  private static ByteArrayOutputStream header(int magic, int textLength) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(magic);
    out.writeInt(textLength);
    return bytes;
  }

  @Test
  @DisplayName(
      "another magic, a negative or over-1-MiB text, a negative or over-100,000 count are refused; a stream ending early is EOF")
  void limits() throws IOException {
    assertEquals(
        "not a Trainyard client request",
        assertThrows(
                IOException.class,
                () -> ServerProtocol.readRequest(in(header(ServerProtocol.MAGIC + 1, 0))))
            .getMessage());
    assertEquals(
        "a text of -1 bytes",
        assertThrows(
                IOException.class,
                () -> ServerProtocol.readRequest(in(header(ServerProtocol.MAGIC, -1))))
            .getMessage());
    assertEquals(
        "a text of 1048577 bytes",
        assertThrows(
                IOException.class,
                () ->
                    ServerProtocol.readRequest(
                        in(header(ServerProtocol.MAGIC, ServerProtocol.MAX_TEXT + 1))))
            .getMessage());
    // Exactly the limit is read (then the stream ends where the bytes should be).
    assertThrows(
        EOFException.class,
        () ->
            ServerProtocol.readRequest(in(header(ServerProtocol.MAGIC, ServerProtocol.MAX_TEXT))));
    for (int count : new int[] {-1, ServerProtocol.MAX_ITEMS + 1}) {
      ByteArrayOutputStream bytes = header(ServerProtocol.MAGIC, 1);
      DataOutputStream out = new DataOutputStream(bytes);
      out.write('/');
      out.writeInt(0); // the folder's key: ""
      out.writeInt(count);
      assertEquals(
          "a request with " + count + " items",
          assertThrows(IOException.class, () -> ServerProtocol.readRequest(in(bytes)))
              .getMessage());
    }
    ByteArrayOutputStream atLimit = header(ServerProtocol.MAGIC, 1);
    DataOutputStream out = new DataOutputStream(atLimit);
    out.write('/');
    out.writeInt(0);
    out.writeInt(ServerProtocol.MAX_ITEMS);
    assertThrows(EOFException.class, () -> ServerProtocol.readRequest(in(atLimit)));
  }

  @Test
  @DisplayName("a frame's bytes are read up to 1 MiB; a negative or longer length is refused")
  void frameLimits() throws IOException {
    for (int length : new int[] {-1, ServerProtocol.MAX_TEXT + 1}) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      new DataOutputStream(bytes).writeInt(length);
      assertEquals(
          "a frame of " + length + " bytes",
          assertThrows(IOException.class, () -> ServerProtocol.readBytes(in(bytes))).getMessage());
    }
    ByteArrayOutputStream max = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(max);
    out.writeInt(ServerProtocol.MAX_TEXT);
    out.write(new byte[ServerProtocol.MAX_TEXT]);
    assertEquals(ServerProtocol.MAX_TEXT, ServerProtocol.readBytes(in(max)).length);
    ByteArrayOutputStream empty = new ByteArrayOutputStream();
    new DataOutputStream(empty).writeInt(0);
    assertArrayEquals(new byte[0], ServerProtocol.readBytes(in(empty)));
  }

  @Test
  @DisplayName(
      "a long write leaves as frames of at most 64 KiB, in order, flushed at once; one byte is one frame")
  void frames() throws IOException {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(wire, 1 << 20));
    ResidentServer.Frames frames = new ResidentServer.Frames(out, ServerProtocol.ERR);
    byte[] data = new byte[2 * ResidentServer.Frames.CHUNK + 7];
    Arrays.fill(data, (byte) 'a');
    data[ResidentServer.Frames.CHUNK] = 'b';
    frames.write(data, 0, data.length);
    frames.write('z');
    DataInputStream read = in(wire); // nothing was closed or flushed by the test
    List<Integer> sizes = new ArrayList<>();
    ByteArrayOutputStream joined = new ByteArrayOutputStream();
    while (read.available() > 0) {
      assertEquals(ServerProtocol.ERR, read.readByte());
      byte[] frame = ServerProtocol.readBytes(read);
      sizes.add(frame.length);
      joined.write(frame);
    }
    assertEquals(List.of(65536, 65536, 7, 1), sizes);
    byte[] expected = Arrays.copyOf(data, data.length + 1);
    expected[data.length] = 'z';
    assertArrayEquals(expected, joined.toByteArray());
    ByteArrayOutputStream exact = new ByteArrayOutputStream();
    ResidentServer.Frames one =
        new ResidentServer.Frames(new DataOutputStream(exact), ServerProtocol.OUT);
    one.write(new byte[ResidentServer.Frames.CHUNK + 2], 1, ResidentServer.Frames.CHUNK);
    assertEquals(1 + 4 + ResidentServer.Frames.CHUNK, exact.size(), "exactly 64 KiB: one frame");
  }

  @Test
  @DisplayName(
      "served: compile, validate, preview, check-secrets; declined: other commands, validate --cluster, any /dev/ or /proc/ path")
  void declined() {
    assertEquals(Optional.empty(), ServerProtocol.declined(List.of("compile", "a/train.yaml")));
    assertEquals(
        Optional.empty(),
        ServerProtocol.declined(List.of("compile", "t.yaml", "--cluster", "dev", "--out=x")));
    assertEquals(Optional.empty(), ServerProtocol.declined(List.of("preview", "--base", "HEAD~1")));
    assertEquals(Optional.empty(), ServerProtocol.declined(List.of("check-secrets", "devices/")));
    assertEquals(Optional.of("(no command)"), ServerProtocol.declined(List.of()));
    assertEquals(Optional.of("status"), ServerProtocol.declined(List.of("status", "-w")));
    assertEquals(Optional.of("--version"), ServerProtocol.declined(List.of("--version")));
    assertEquals(
        Optional.of("validate --cluster"),
        ServerProtocol.declined(List.of("validate", "t.yaml", "--cluster")));
    assertEquals(
        Optional.of("validate --cluster"),
        ServerProtocol.declined(List.of("validate", "--cluster=true", "t.yaml")));
    assertEquals(
        Optional.of("validate with /dev/..."),
        ServerProtocol.declined(List.of("validate", "/dev/stdin")));
    assertEquals(
        Optional.of("compile with /dev/..."),
        ServerProtocol.declined(List.of("compile", "/dev/fd/63")));
    assertEquals(
        Optional.of("compile with /proc/..."),
        ServerProtocol.declined(List.of("compile", "t.yaml", "--out=/proc/self/cwd")));
  }
}
