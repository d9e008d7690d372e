package io.fastrmi.agent;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.fastsockets.transport.NativeTransports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where {@code libfastrmi.so} is: the config's {@code native-library}, else the copy in the agent jar, extracted. */
public final class NativeLibraryFile {

    static final String RESOURCE = "META-INF/fastrmi/native/linux-x86_64/libfastrmi.so";

    private NativeLibraryFile() {
    }

    /** {@link #locate} for the socket layer, which asks when it first needs the library. */
    public static final class Locator implements NativeTransports.LibraryLocator {
        private final FastRmiConfig config;

        public Locator(FastRmiConfig config) {
            this.config = config;
        }

        @Override
        public Path locate() throws IOException {
            return NativeLibraryFile.locate(config);
        }
    }

    public static Path locate(FastRmiConfig config) throws IOException {
        if (config.nativeLibrary().isPresent()) {
            Path configured = config.nativeLibrary().get();
            if (!Files.isReadable(configured)) {
                throw new IOException("native-library " + configured + " (from the config) is not a readable file");
            }
            return configured;
        }
        if (!System.getProperty("os.name", "").equals("Linux") || !System.getProperty("os.arch", "").equals("amd64")) {
            throw new IOException("the agent jar carries libfastrmi.so for Linux x86_64 only; this is "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                    + " (build one and name it with native-library)");
        }
        Path file = BootstrapJar.extract(BootstrapJar.carried(RESOURCE), BootstrapJar.cacheDirectory(),
                "libfastrmi-", ".so");
        return file;
    }
}
