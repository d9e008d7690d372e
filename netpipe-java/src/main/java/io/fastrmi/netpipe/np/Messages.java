package io.fastrmi.netpipe.np;

/** The contents of the messages: a pattern, so that a reply that was changed on the way is noticed. */
final class Messages {

    private Messages() {
    }

    static byte[] bytes(int size) {
        byte[] message = new byte[size];
        for (int i = 0; i < size; i++) {
            message[i] = (byte) (i * 31 + 7);
        }
        return message;
    }

    static int[] ints(int count) {
        int[] message = new int[count];
        for (int i = 0; i < count; i++) {
            message[i] = i * 0x9E3779B1;
        }
        return message;
    }

    static double[] doubles(int count) {
        double[] message = new double[count];
        for (int i = 0; i < count; i++) {
            message[i] = i * 0.5 - 1e6;
        }
        return message;
    }

    static float[] floats(int count) {
        float[] message = new float[count];
        for (int i = 0; i < count; i++) {
            message[i] = i * 0.25f + 1;
        }
        return message;
    }
}
