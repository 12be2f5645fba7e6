package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The cases of {@code interop-golden/launch/cases.json}, which the Python side's {@code tests/test_launch.py} reads
 * (and writes) too: the same environments give the same ranks, addresses, identities, secrets and error lines on
 * both sides; the same node lists the same hosts; the same identities the same ports and secrets.
 */
class LaunchGoldenTest {
    @SuppressWarnings("unchecked")
    private static Map<String, Object> golden() throws IOException {
        Path root = ProjectRoot.find().orElseThrow(() -> new IllegalStateException("not inside the checkout"));
        String text = Files.readString(root.resolve("interop-golden/launch/cases.json"), StandardCharsets.US_ASCII);
        return (Map<String, Object>) Json.parse(text);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> doc, String key) {
        return (List<Map<String, Object>>) doc.get(key);
    }

    @SuppressWarnings("unchecked")
    @TestFactory
    Stream<DynamicTest> environments() throws IOException {
        List<Map<String, Object>> cases = list(golden(), "environments");
        assertTrue(cases.size() > 50, "only " + cases.size() + " environments");
        return cases.stream().map(c -> DynamicTest.dynamicTest((String) c.get("name"), () -> {
            Map<String, String> env = (Map<String, String>) (Map<?, ?>) c.get("env");
            assertEquals(c, expect((String) c.get("name"), env));
        }));
    }

    /** What this side makes of {@code env}, in the file's form. */
    private static Map<String, Object> expect(String name, Map<String, String> env) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("env", env);
        LaunchEnvironment e;
        try {
            e = LaunchEnvironment.detect(env);
        } catch (LaunchEnvironmentException x) {
            out.put("error", x.variable());
            out.put("message", x.getMessage());
            return out;
        }
        out.put("launcher", e.launcher().name());
        out.put("rank", (long) e.rank());
        out.put("size", (long) e.size());
        out.put("local_rank", (long) e.localRank());
        out.put("rendezvous", e.rendezvous().map(HostPort::toString).orElse(null));
        if (e.rendezvous().isEmpty()) {
            LaunchEnvironmentException x = assertThrows(LaunchEnvironmentException.class, e::requireRendezvous);
            out.put("rendezvous_error", x.variable());
            out.put("rendezvous_message", x.getMessage());
        }
        out.put("identity", e.jobIdentity().map(JobIdentity::text).orElse(null));
        out.put("secret", e.hasSecret() ? HexFormat.of().formatHex(e.requireSecret()) : null);
        return out;
    }

    @SuppressWarnings("unchecked")
    @TestFactory
    Stream<DynamicTest> nodeLists() throws IOException {
        return list(golden(), "node_lists").stream().map(c -> DynamicTest.dynamicTest("'" + c.get("list") + "'", () -> {
            String text = (String) c.get("list");
            if (c.containsKey("hosts")) {
                List<String> hosts = new ArrayList<>((List<String>) c.get("hosts"));
                assertEquals(hosts, SlurmNodeList.expand(text));
                assertEquals(hosts.getFirst(), SlurmNodeList.first(text));
            } else {
                IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                        () -> SlurmNodeList.expand(text));
                assertEquals(c.get("error"), x.getMessage());
                assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.first(text));
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> identities() throws IOException {
        return list(golden(), "identities").stream().map(c -> DynamicTest.dynamicTest(
                "'" + ((String) c.get("identity")).replace('\n', '|') + "'", () -> {
                    JobIdentity id = new JobIdentity((String) c.get("identity"));
                    assertEquals((long) (Long) c.get("port"), id.port());
                    assertEquals(c.get("secret"), HexFormat.of().formatHex(id.secret()));
                }));
    }
}
