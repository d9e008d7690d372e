package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStatus;

/**
 * Prints, for each {@link NativeStatus} and a few codes that are none, the name the library's
 * {@code fastrmi_strstatus} gives it: {@code STATUS code java-name library-name}. Usage:
 * {@code NativeStatusMain LIBRARY}.
 */
public final class NativeStatusMain {

    /** Codes that are no status: the one past the last, a positive one, the extremes. */
    public static final int[] NOT_STATUSES = {NativeStatus.values()[NativeStatus.values().length - 1].code() - 1, 1,
        Integer.MIN_VALUE, Integer.MAX_VALUE};

    private NativeStatusMain() {
    }

    public static void main(String[] args) {
        NativeLibrary library = LibraryMains.load(args[0], NativeStatusMain.class);
        for (NativeStatus status : NativeStatus.values()) {
            System.out.println("STATUS " + status.code() + " " + status.cName() + " " + library.statusName(status.code()));
        }
        for (int code : NOT_STATUSES) {
            System.out.println("STATUS " + code + " " + NativeStatus.UNKNOWN + " " + library.statusName(code));
        }
    }
}
