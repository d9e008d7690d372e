package io.fastrmi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TransportNameTest {

    @Test
    void namesParseIntoBackendAndProviderAndPrintBack() {
        assertEquals(TransportName.TCP, TransportName.parse("tcp"));
        TransportName rxm = TransportName.parse("ofi:tcp;ofi_rxm");
        assertEquals(TransportName.Backend.OFI, rxm.backend());
        assertEquals("tcp;ofi_rxm", rxm.provider());
        TransportName ucx = TransportName.parse("ucx:shm");
        assertEquals(TransportName.Backend.UCX, ucx.backend());
        for (String name : new String[] {"tcp", "ofi:shm", "ofi:tcp;ofi_rxm", "ofi:verbs;ofi_rxm", "ucx:shm", "ucx:tcp"}) {
            assertEquals(name, TransportName.parse(name).toString());
        }
    }

    @Test
    void onlySharedMemoryIsSameHostOnlyAndOnlyTcpIsNotNative() {
        assertTrue(TransportName.parse("ofi:shm").isSameHostOnly());
        assertTrue(TransportName.parse("ucx:shm").isSameHostOnly());
        assertFalse(TransportName.parse("ucx:tcp").isSameHostOnly());
        assertFalse(TransportName.parse("ofi:shmx").isSameHostOnly());
        assertFalse(TransportName.TCP.isSameHostOnly());
        assertFalse(TransportName.TCP.isNative());
        assertTrue(TransportName.parse("ofi:tcp;ofi_rxm").isNative());
    }

    @Test
    void anythingElseIsRefusedWithTheGrammar() {
        for (String bad : new String[] {"", "rdma", "ucx", "ofi", "ofi:", "ucx:", "tcp:x", "ofi:a;b;c", "ucx:a;b", "OFI:shm",
            "ofi:shm ", "ofi:../x", ":shm"}) {
            assertEquals(Optional.empty(), TransportName.tryParse(bad), bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TransportName.parse(bad));
            assertEquals("unknown transport '" + bad + "' (expected " + TransportName.GRAMMAR + ")", e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new TransportName(TransportName.Backend.TCP, "x"));
        assertThrows(IllegalArgumentException.class, () -> new TransportName(TransportName.Backend.UCX, ""));
    }

    /** A peer's transport names are parsed: whatever comes, a name or nothing, and what parses prints back as sent. */
    @Test
    void fuzzedNamesParseToNothingOrToThemselves() {
        String alphabet = "tcpofiuxshm_rxm;:./ A-Z09\u00e9\u0000";
        String[] seeds = {"tcp", "ofi:shm", "ofi:tcp;ofi_rxm", "ucx:shm", "ucx:tcp"};
        SplittableRandom random = new SplittableRandom(11);
        int parsed = 0;
        for (int i = 0; i < 100_000; i++) {
            StringBuilder name = new StringBuilder(seeds[random.nextInt(seeds.length)]);
            for (int edits = random.nextInt(4); edits > 0 && name.length() > 0; edits--) {
                int at = random.nextInt(name.length());
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(3)) {
                    case 0 -> name.setCharAt(at, c);
                    case 1 -> name.insert(at, c);
                    default -> name.deleteCharAt(at);
                }
            }
            String text = name.toString();
            Optional<TransportName> result = TransportName.tryParse(text);
            if (result.isPresent()) {
                parsed++;
                assertEquals(text, result.get().toString());
            }
        }
        assertTrue(parsed > 0 && parsed < 100_000, "some fuzzed names parse, not all: " + parsed);
    }

    @Test
    void theNativeBackendCodesAreTheHeadersEnumFastrmiBackend() throws Exception {
        String header = Files.readString(Path.of("..", "native", "include", "fastrmi.h"));
        Matcher body = Pattern.compile("enum fastrmi_backend \\{(.*?)\\};", Pattern.DOTALL).matcher(header);
        assertTrue(body.find(), "no enum fastrmi_backend in fastrmi.h");
        Map<String, Integer> inHeader = new HashMap<>();
        Matcher entry = Pattern.compile("FASTRMI_BACKEND_(\\w+)\\s*=\\s*(\\d+)").matcher(body.group(1));
        while (entry.find()) {
            inHeader.put(entry.group(1), Integer.parseInt(entry.group(2)));
        }
        Map<String, Integer> inJava = new HashMap<>();
        for (TransportName.Backend backend : TransportName.Backend.values()) {
            if (backend != TransportName.Backend.TCP) {
                inJava.put(backend.name(), backend.nativeCode());
            }
        }
        assertEquals(inHeader, inJava);
    }
}
