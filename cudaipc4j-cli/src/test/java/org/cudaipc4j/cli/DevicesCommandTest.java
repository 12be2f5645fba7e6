package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.driver.CudaLibrary;
import org.cudaipc4j.cuda.driver.CudaSettings;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DevicesCommandTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String ABSENT = "-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1";

    @Test
    void withoutADriverItSaysSoAndExitsWaived() {
        for (String[] args : List.of(new String[] {"devices"}, new String[] {"devices", "--json"})) {
            JavaProcess.Result r = JavaProcess.run(TIMEOUT, Main.class, List.of(ABSENT), args);
            assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
            assertEquals("cudaipc4j: waived: no NVIDIA driver found: could not load libcudaipc4j-absent.so.1 (simpleIPC"
                    + " runs on simulated devices without a GPU: cudaipc4j --backend host)\n", r.stderr(), r.describe());
            if (args.length == 1) {
                assertEquals("", r.stdout(), r.describe());
            } else {
                JsonObject root = JsonParser.parseString(r.stdout()).getAsJsonObject();
                assertEquals(false, root.get("available").getAsBoolean(), r.describe());
                assertEquals("no NVIDIA driver found: could not load libcudaipc4j-absent.so.1",
                        root.get("reason").getAsString());
                assertEquals(0, root.getAsJsonArray("devices").size());
            }
        }
    }

    @Test
    void onThisMachineWithoutLibcudaItExitsWaived() {
        Assumptions.assumeFalse(CudaLibrary.isAvailable(), "skipped: this machine has a CUDA driver");
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(ExitCodes.WAIVED, cl.execute("devices"));
        assertEquals("cudaipc4j: waived: no NVIDIA driver found: could not load "
                + String.join(", ", CudaLibrary.namesToTry()) + DevicesCommand.NO_GPU_HINT, err.toString().strip());
    }

    @Test
    @GpuTest
    void listsEveryDeviceAsTextAndJson() {
        int count = Device.count();
        JavaProcess.Result text = JavaProcess.run(TIMEOUT, Main.class, List.of(), "devices");
        assertEquals(ExitCodes.OK, text.exitCode(), text.describe());
        System.out.print(text.stdout());
        for (int i = 0; i < count; i++) {
            assertTrue(text.stdout().contains("Device " + i + ": " + Device.get(i).name()), text.describe());
        }
        assertTrue(text.stdout().contains("IPC capable"), text.describe());
        assertTrue(text.stdout().contains("Peer access"), text.describe());

        JavaProcess.Result json = JavaProcess.run(TIMEOUT, Main.class, List.of(), "devices", "--json");
        assertEquals(ExitCodes.OK, json.exitCode(), json.describe());
        System.out.print(json.stdout());
        JsonObject root = JsonParser.parseString(json.stdout()).getAsJsonObject();
        JsonArray devices = root.getAsJsonArray("devices");
        assertEquals(count, devices.size());
        for (int i = 0; i < count; i++) {
            JsonObject d = devices.get(i).getAsJsonObject();
            assertEquals(i, d.get("ordinal").getAsInt());
            assertEquals(Device.get(i).pciBusId(), d.get("pciBusId").getAsString());
            assertEquals(Device.get(i).ipcUnsupportedReason().isEmpty(), d.get("ipcCapable").getAsBoolean());
            assertEquals("GPU-" + Device.get(i).uuid(), d.get("uuid").getAsString());
            JsonObject paths = d.getAsJsonObject("ipcPaths");
            assertEquals(5, paths.size(), paths.toString());
            for (String path : paths.keySet()) {
                JsonObject p = paths.getAsJsonObject(path);
                assertTrue(p.get("supported").getAsBoolean() || !p.get("reason").getAsString().isBlank(),
                        path + " without a reason: " + p);
            }
        }
        assertTrue(text.stdout().contains("  IPC vmm-fd          "), text.describe());
        JsonArray peers = root.getAsJsonArray("peerAccess");
        assertEquals(count, peers.size());
        assertTrue(peers.get(0).getAsJsonArray().get(0).isJsonNull());
    }
}
