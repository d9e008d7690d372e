package io.fastrmi.fastsockets.jvm;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A process that takes a shared POSIX lock on the file it is given, says LOCKED, and waits to be killed. */
public final class LockHolderMain {

    private LockHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        channel.lock(0, Long.MAX_VALUE, true);
        System.out.println("LOCKED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
