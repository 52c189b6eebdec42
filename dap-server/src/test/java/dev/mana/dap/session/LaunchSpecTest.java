package dev.mana.dap.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** launch.json attributes as a client sends them (JSON, numbers as doubles) and what is refused. */
class LaunchSpecTest {
    static final Path ROOT = Path.of("/opt/mana");

    @SuppressWarnings("unchecked")
    static Map<String, Object> json(String s) {
        return new Gson().fromJson(s, Map.class);
    }

    @Test
    void restartLaunch() {
        LaunchSpec s = LaunchSpec.forLaunch(json("{\"type\":\"mana\",\"request\":\"launch\",\"restartdir\":\"/scratch/ck\","
                + "\"rank\":2,\"ranks\":4,\"mpirun\":\"mpirun -n 4\",\"env\":{\"MANA_RC\":\"/x/rc\",\"N\":3},"
                + "\"stopOnEntry\":true,\"timeout\":90}"), ROOT);
        assertEquals(LaunchSpec.Kind.RESTART, s.kind());
        assertEquals(Path.of("/scratch/ck"), s.restartDir());
        assertEquals(2, s.rankOr0());
        assertEquals(2, s.pauseLevel(), "the default level: the upper half is back, breakpoints can go in");
        assertEquals(List.of("mpirun", "-n", "4"), s.mpirun());
        assertEquals(Map.of("MANA_RC", "/x/rc", "N", "3"), s.env());
        assertTrue(s.stopOnEntry());
        assertEquals(Duration.ofSeconds(90), s.timeout());
        assertEquals(ROOT, s.manaRoot());
        assertEquals("gdb", s.gdb());
    }

    @Test
    void programLaunch() {
        LaunchSpec s = LaunchSpec.forLaunch(json("{\"program\":\"./app\",\"args\":[\"100\",7],\"ckptdir\":\"ck\","
                + "\"manaRoot\":\"/usr/local/mana\"}"), ROOT);
        assertEquals(LaunchSpec.Kind.LAUNCH_PROGRAM, s.kind());
        assertEquals(List.of("100", "7"), s.args());
        assertTrue(s.ckptDir().isAbsolute());
        assertNull(s.pauseLevel());
        assertEquals(Path.of("/usr/local/mana"), s.manaRoot());
    }

    @Test
    void attach() {
        LaunchSpec byPid = LaunchSpec.forAttach(json("{\"pid\":\"4242\"}"), ROOT); // ${command:pickProcess}
        assertEquals(4242L, byPid.pid());
        assertNull(byPid.rank(), "the rank comes from the process");
        LaunchSpec byRank = LaunchSpec.forAttach(json("{\"restartdir\":\"/ck\",\"rank\":1,\"ranks\":2,"
                + "\"pauseLevel\":3}"), ROOT);
        assertEquals(1, byRank.rank());
        assertEquals(3, byRank.pauseLevel());
    }

    @Test
    void refusals() {
        assertMessage("either \"restartdir\"", () -> LaunchSpec.forLaunch(json("{}"), ROOT));
        assertMessage("not both", () -> LaunchSpec.forLaunch(json("{\"restartdir\":\"/a\",\"program\":\"b\"}"), ROOT));
        assertMessage("\"pauseLevel\" must be 2, 3 or 4",
                () -> LaunchSpec.forLaunch(json("{\"restartdir\":\"/a\",\"pauseLevel\":1}"), ROOT));
        assertMessage("needs \"ckptdir\"", () -> LaunchSpec.forLaunch(json("{\"program\":\"b\"}"), ROOT));
        assertMessage("\"rank\" must be 0 or more", () -> LaunchSpec.forLaunch(json("{\"restartdir\":\"/a\",\"rank\":-1}"), ROOT));
        assertMessage("must be more than \"rank\"",
                () -> LaunchSpec.forLaunch(json("{\"restartdir\":\"/a\",\"rank\":3,\"ranks\":2}"), ROOT));
        assertMessage("\"rank\" must be a whole number",
                () -> LaunchSpec.forLaunch(json("{\"restartdir\":\"/a\",\"rank\":1.5}"), ROOT));
        assertMessage("\"args\" must be a list", () -> LaunchSpec.forLaunch(json("{\"program\":\"b\",\"ckptdir\":\"c\","
                + "\"args\":{\"a\":1}}"), ROOT));
        assertMessage("attach needs \"pid\"", () -> LaunchSpec.forAttach(json("{}"), ROOT));
        assertMessage("needs \"rank\"", () -> LaunchSpec.forAttach(json("{\"restartdir\":\"/a\"}"), ROOT));
        assertMessage("\"program\" is for launch", () -> LaunchSpec.forAttach(json("{\"pid\":1,\"program\":\"x\"}"), ROOT));
    }

    static void assertMessage(String part, org.junit.jupiter.api.function.Executable e) {
        LaunchSpec.BadAttribute x = assertThrows(LaunchSpec.BadAttribute.class, e);
        assertTrue(x.getMessage().contains(part), x.getMessage());
    }
}
